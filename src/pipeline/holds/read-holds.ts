/**
 * Whether a read must be held instead of loaded, judged against what the warehouse holds: the
 * rules of window-holds.ts and reject-share.ts, in order (the first that applies is the hold).
 */
import type { StreamSettings } from "../../config/config.js";
import type { LoadRow } from "../../streams/load-row.js";
import type { Slice, StreamDefinition } from "../../streams/stream-definition.js";
import type { Warehouse } from "../../warehouse/connection/connect-warehouse.js";
import { fieldPresence, replacesRows, storedRowCount } from "../../warehouse/state/window-contents.js";
import { outsideWindowMessage, tooManyOutsideWindow } from "../extract/outside-window.js";
import type { RejectedRow } from "../extract/parse-rows.js";
import { type AcceptedHolds, isAccepted } from "./accepted-holds.js";
import { heldWindowMessage, tooManyRejects } from "./reject-share.js";
import { driftHold, type Hold, missingChargeHold, type ReadPlace, shrinkHold } from "./window-holds.js";

/** One read about to load: where it lands, its rows and rejects, and the stream's thresholds. */
export interface ReadToJudge {
  readonly warehouse: Warehouse;
  readonly stream: StreamDefinition;
  readonly account: string;
  readonly slice: Slice;
  /** The slice's label (`2026-08-01..2026-08-02`, or `full`). */
  readonly label: string;
  readonly rows: readonly LoadRow[];
  readonly rejects: readonly RejectedRow[];
  /** The rejects that failed validation (not those rejected only for lying outside the window). */
  readonly invalid: readonly RejectedRow[];
  /** Rows dated outside the window read, and whether they were rejected (replaced windows) or load by key. */
  readonly outside: { readonly count: number; readonly rejected: boolean };
  readonly settings: StreamSettings;
  readonly accepted: AcceptedHolds;
  /** Says a line that is worth a warning but holds nothing (a few rows outside the window). */
  readonly warn: (message: string) => void;
}

/** The hold of a read, or undefined when it may load. */
export async function holdOf(read: ReadToJudge): Promise<Hold | undefined> {
  const { stream, slice, rows, settings } = read;
  const place: ReadPlace = {
    account: read.account,
    stream: stream.name,
    window: slice.kind === "window" ? read.label : "(all)",
  };
  const confirmed = {
    account: read.account,
    stream: stream.name,
    windowStart: slice.kind === "window" ? slice.window.start : null,
  };
  const total = rows.length + read.rejects.length;
  if (tooManyRejects(read.invalid.length, total, settings.maxRejectShare)) {
    const message = heldWindowMessage({
      ...place,
      rejected: read.invalid.length,
      total,
      maxShare: settings.maxRejectShare,
      rejects: read.invalid,
    });
    return { reason: "too_many_rejects", message };
  }
  if (read.outside.count > 0) {
    const maxShare = settings.maxOutsideWindowShare ?? 0;
    const message = outsideWindowMessage({
      ...place,
      outside: read.outside.count,
      total,
      maxShare,
      rejected: read.outside.rejected,
    });
    if (tooManyOutsideWindow(read.outside.count, total, maxShare))
      return { reason: "outside_window", message };
    read.warn(message);
  }
  for (const check of stream.qualityChecks ?? []) {
    if (check.billable === undefined) continue;
    let missing = 0;
    let billable = 0;
    for (const row of rows) {
      if (!check.billable(row.columns)) continue;
      billable++;
      if (check.test(row.columns)) missing++;
    }
    const hold = missingChargeHold(place, { missing, billable }, settings.maxMissingChargeShare);
    if (hold !== null) return hold;
  }
  if (!isAccepted(read.accepted.drift, confirmed)) {
    const nullable = stream.columns.filter((c) => c.nullable).map((c) => c.name);
    // Only a column null in every row can have been renamed away: ask the warehouse only then.
    const allNull = nullable.filter((c) =>
      rows.every((row) => row.columns[c] === null || row.columns[c] === undefined),
    );
    if (rows.length > 0 && allNull.length > 0 && rows.some((row) => row.extra !== null)) {
      const before = await fieldPresence(read.warehouse, stream.table, read.account, slice, allNull);
      const hold = driftHold(place, rows, allNull, before);
      if (hold !== null) return hold;
    }
  }
  if (replacesRows(stream.table)) {
    const stored = await storedRowCount(read.warehouse, stream.table, read.account, slice);
    const accepted = isAccepted(read.accepted.shrink, confirmed);
    const hold = shrinkHold(place, { stored, fresh: rows.length }, settings.maxShrinkShare, accepted);
    if (hold !== null) return hold;
  }
  return undefined;
}
