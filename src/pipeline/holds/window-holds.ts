/**
 * When a read must not change the warehouse: the rules that hold a window (or a whole-list
 * refresh) instead of loading it, each as a pure function of the read and of what the warehouse
 * already holds, so the rules are tested without a database. A held read writes nothing (the
 * window keeps its rows), stores its rejects, opens the window again if it had settled, and fails
 * the run (exit 1) with one line saying what looked wrong and how to go on.
 */
import type { LoadRow } from "../../streams/load-row.js";
import type { FieldPresence } from "../../warehouse/state/window-contents.js";
import { tooManyRejects } from "./reject-share.js";

/** Why a read was held (`etl.run_slices.hold_reason`). */
export const HOLD_REASONS = [
  "too_many_rejects",
  "outside_window",
  "shrink",
  "drift",
  "missing_charges",
] as const;
/** A reason to hold a read. */
export type HoldReason = (typeof HOLD_REASONS)[number];

/** A held read: why, and the one line the run reports. */
export interface Hold {
  readonly reason: HoldReason;
  readonly message: string;
}

/** Where a read belongs, for its messages: `account master, stream cdrs, window 2026-08-01..2026-08-02`. */
export interface ReadPlace {
  readonly account: string;
  readonly stream: string;
  /** The window's label, or `(all)` for a whole-list refresh. */
  readonly window: string;
}

function where(place: ReadPlace): string {
  return `account ${place.account}, stream ${place.stream}, window ${place.window}`;
}

const number = new Intl.NumberFormat("en-US");
const percent = (share: number) => `${(100 * share).toFixed(1)}%`;

/** Below this many stored rows a partial shrink is not judged (a drop to zero always is). */
export const MIN_SHRINK_ROWS = 10;

/**
 * A read that would replace `stored` rows of the warehouse with `fresh` ones holds when it drops
 * to zero, or when at least {@link MIN_SHRINK_ROWS} rows shrink by more than `maxShrinkShare`
 * (default 0.5): a valid empty answer must not delete what the warehouse holds. `accepted`: the
 * operator confirmed a real deletion (`--accept-shrink`).
 */
export function shrinkHold(
  place: ReadPlace,
  counts: { readonly stored: number; readonly fresh: number },
  maxShrinkShare: number,
  accepted: boolean,
): Hold | null {
  const { stored, fresh } = counts;
  if (accepted || stored === 0 || fresh >= stored) return null;
  const share = (stored - fresh) / stored;
  if (fresh > 0 && (stored < MIN_SHRINK_ROWS || share <= maxShrinkShare)) return null;
  const spec =
    place.window === "(all)"
      ? `${place.account}/${place.stream}`
      : `${place.account}/${place.stream}/${place.window.slice(0, 10)}`;
  return {
    reason: "shrink",
    message:
      `${where(place)}: the platform lists ${number.format(fresh)} rows where the warehouse holds ` +
      `${number.format(stored)} (${percent(share)} fewer, more than max_shrink_share ${maxShrinkShare}); ` +
      `held: the warehouse keeps its rows. If the platform really deleted them, run again with --accept-shrink ${spec}`,
  };
}

/**
 * A read of a window that was settled (or re-opened after settling) that would delete stored rows:
 * held whatever the share, until the operator confirms (`--accept-shrink`), since a settled
 * window's rows are what BI trusts. Rows the read rejected may be among those it no longer lists
 * (they are kept in `etl.rejects`), so only deletions beyond them hold. `listed`: the rows the read
 * lists.
 */
export function settledDeletionHold(
  place: ReadPlace & { readonly windowStart: string },
  counts: { readonly deleted: number; readonly rejected: number; readonly listed: number },
  accepted: boolean,
): Hold | null {
  if (accepted || counts.deleted <= counts.rejected) return null;
  const rows = counts.deleted === 1 ? "1 row" : `${number.format(counts.deleted)} rows`;
  return {
    reason: "shrink",
    message:
      `${where(place)}: ${rows} the warehouse holds in this settled window ${counts.deleted === 1 ? "is" : "are"} no longer listed by the platform ` +
      `(it lists ${number.format(counts.listed)}); held: the warehouse keeps its rows. A settled window's rows are deleted only when confirmed: ` +
      `if the platform really deleted them, run again with --accept-shrink ${place.account}/${place.stream}/${place.windowStart}`,
  };
}

/**
 * A window where more than `maxShare` of the billable calls (answered, rated, with a duration)
 * lack a charge, beyond chance (the rule of max_reject_share): the platform's rating has broken,
 * and loading would settle calls without their cost.
 */
export function missingChargeHold(
  place: ReadPlace,
  counts: { readonly missing: number; readonly billable: number },
  maxShare: number,
): Hold | null {
  if (!tooManyRejects(counts.missing, counts.billable, maxShare)) return null;
  return {
    reason: "missing_charges",
    message:
      `${where(place)}: ${number.format(counts.missing)} of ${number.format(counts.billable)} billable calls ` +
      `(${percent(counts.missing / counts.billable)}) have no charge, more than max_missing_charge_share ${maxShare}; ` +
      "held: the window keeps its rows and is read again by every run until the platform rates them",
  };
}

/** A field must have been expected in at least this many rows of a read to be called missing. */
export const MIN_EXPECTED_ROWS = 5;

/**
 * A declared field gone from every row of a read where it was present before, while a field the
 * warehouse has never seen appears in about as many rows: the platform renamed it (`forward_fee`
 * → `fwd_fee`), and loading would put its values in `_extra` and nulls in the column. Missing:
 * null in all `fresh` rows where the reference's share predicts at least {@link MIN_EXPECTED_ROWS};
 * new: an `_extra` key absent from the reference, in at least half the rows the field was expected in.
 */
export function driftHold(
  place: ReadPlace,
  fresh: readonly LoadRow[],
  nullableColumns: readonly string[],
  before: FieldPresence,
): Hold | null {
  if (before.rows === 0 || fresh.length === 0) return null;
  const newKeys = new Map<string, number>();
  for (const row of fresh) {
    for (const key of Object.keys(row.extra ?? {}))
      if (!before.extraKeys.has(key)) newKeys.set(key, (newKeys.get(key) ?? 0) + 1);
  }
  if (newKeys.size === 0) return null;
  const renamed: string[] = [];
  for (const column of nullableColumns) {
    const share = (before.nonNull[column] ?? 0) / before.rows;
    const expected = share * fresh.length;
    if (expected < MIN_EXPECTED_ROWS) continue;
    if (fresh.some((row) => row.columns[column] !== null && row.columns[column] !== undefined)) continue;
    const candidates = [...newKeys].filter(([, n]) => n >= expected / 2).map(([key]) => key);
    if (candidates.length === 0) continue;
    renamed.push(
      `${column} missing (null in all ${number.format(fresh.length)} rows, set in ${percent(share)} before), ` +
        `${candidates.join(", ")} new`,
    );
  }
  if (renamed.length === 0) return null;
  return {
    reason: "drift",
    message:
      `${where(place)}: ${renamed.join("; ")}: renamed? Held: the window keeps its rows and is read again by every ` +
      "run; map the new field (or confirm the change) before it loads",
  };
}
