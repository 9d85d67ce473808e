/**
 * What `telecom-etl check` reports: one item per thing it looked at (an account's reachability, a
 * stream's permission, the warehouse's migrations, dbt), each `ok` or saying what is wrong and how
 * to fix it, and the exit code they add up to.
 */
import { EXIT, type ExitCode } from "../core/exit-codes.js";

/** How an item came out. */
export const CHECK_STATUSES = ["ok", "warn", "fail", "unknown"] as const;
/**
 * `ok`; `warn`: worth knowing, nothing fails because of it (a clock skew, migrations the next run
 * applies, a product not provisioned); `fail`: a configuration error a run would stop on or skip
 * for (exit 2); `unknown`: it could not be checked now (a timeout, a 5xx: try again; exit 1).
 */
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** One line of the check. */
export interface CheckItem {
  /** What was checked: `account acme`, `warehouse`, `dbt`. */
  readonly subject: string;
  /** Which part of it: `reachable`, `key`, `stream cdrs`, `migrations`, `BI role`, `profile`. */
  readonly item: string;
  readonly status: CheckStatus;
  /** `ok`'s evidence, or what is wrong and how to fix it (one line, no secret). */
  readonly detail: string;
}

/** `ok    account acme: stream cdrs: GET /v1/cdrs answered 200 (calls:read)`. */
export function formatCheckItem(item: CheckItem): string {
  return `${item.status.padEnd(7)} ${item.subject}: ${item.item}: ${item.detail}`;
}

/** 2 when any item failed (a configuration error), else 1 when any could not be checked, else 0. */
export function checkExitCode(items: readonly CheckItem[]): ExitCode {
  if (items.some((i) => i.status === "fail")) return EXIT.usage;
  if (items.some((i) => i.status === "unknown")) return EXIT.workFailed;
  return EXIT.ok;
}

/** The last line: how many items of each status, and the exit code. */
export function checkVerdict(items: readonly CheckItem[]): string {
  const count = (status: CheckStatus) => items.filter((i) => i.status === status).length;
  const parts = CHECK_STATUSES.filter((s) => count(s) > 0).map((s) => `${count(s)} ${s}`);
  return `check: ${parts.join(", ")} (exit ${checkExitCode(items)})`;
}
