/**
 * Rows a platform serves for a window they do not belong to (a platform whose day is shifted, a
 * time zone that is not UTC): a row whose window column falls on a UTC day outside the requested
 * window. A merge stream still loads such a row under its own day (its key places it, nothing is
 * duplicated); a stream whose windows are replaced whole cannot (the row's own window is replaced
 * by that window's read), so it becomes a reject with the reason. Either way the window counts
 * them, warns, and is held above `max_outside_window_share`. Pure.
 */

import type { DateWindow } from "../../core/slices.js";
import { utcDayOfValue } from "../../core/utc-days.js";
import type { LoadRow } from "../../streams/load-row.js";
import type { RejectedRow, RowIssue } from "./parse-rows.js";

/** The quality count of a slice's rows outside its window, and the code of their rejects' issue. */
export const OUTSIDE_WINDOW = "outside_window";

/**
 * A check of a row against `window` by `column`: null when the row belongs to it (or its day
 * cannot be told: a null is another check's business), else the issue a reject of it stores.
 */
export function outsideWindowCheck(column: string, window: DateWindow): (row: LoadRow) => RowIssue | null {
  return (row) => {
    const day = utcDayOfValue(row.columns[column]);
    if (day === null || (day >= window.start && day < window.end)) return null;
    return {
      path: column,
      code: OUTSIDE_WINDOW,
      message: `${column} falls on ${day} (UTC), outside the requested window ${window.start}..${window.end}: is the platform's day shifted?`,
    };
  };
}

/** True when more than `maxShare` of a window's `total` rows lie outside it. */
export function tooManyOutsideWindow(outside: number, total: number, maxShare: number): boolean {
  return outside > 0 && outside > maxShare * total;
}

/**
 * The one line a window held for rows outside it fails the run with, saying where those rows went.
 */
export function outsideWindowMessage(input: {
  readonly account: string;
  readonly stream: string;
  readonly window: string;
  readonly outside: number;
  readonly total: number;
  readonly maxShare: number;
  readonly rejected: boolean;
}): string {
  const where = input.rejected
    ? "they are in etl.rejects (outside_window)"
    : "a merge would load them under their own day";
  const held = input.outside > input.maxShare * input.total;
  return (
    `account ${input.account}, stream ${input.stream}, window ${input.window}: ${input.outside} of ${input.total} rows ` +
    `the platform served for this window lie outside it — is the platform's day shifted (time zone)? ` +
    (held
      ? `Held (more than max_outside_window_share ${input.maxShare}): the window keeps what it held and is read again by every run; ${where}`
      : `${where}`)
  );
}

/**
 * A read's rows outside its window: `outside` counts them, whether they were rejected for it
 * (`rejected`: a replaced window) or kept to load by key (`check` run over the valid rows); `invalid`
 * are the rejects that failed validation (the ones the reject share judges).
 */
export function splitOutside(
  rows: readonly LoadRow[],
  rejects: readonly RejectedRow[],
  check: ((row: LoadRow) => RowIssue | null) | undefined,
  rejected: boolean,
): { readonly invalid: RejectedRow[]; readonly outside: number } {
  const invalid = rejects.filter((reject) => reject.issues[0]?.code !== OUTSIDE_WINDOW);
  const kept = check === undefined || rejected ? 0 : rows.filter((row) => check(row) !== null).length;
  return { invalid, outside: rejects.length - invalid.length + kept };
}
