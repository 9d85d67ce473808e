import { addDays } from "./utc-days.js";

/**
 * Slices of work: a UTC date window or a whole resource, and the text form `etl.run_slices.slice`
 * and `etl.rejects.slice` store. Shared by the streams (what to ask), the pipeline (what to plan)
 * and the warehouse (what to record), so none of them reaches into another for it.
 */

/** A date window [start, end): `YYYY-MM-DD` strings, end exclusive. */
export interface DateWindow {
  readonly start: string;
  readonly end: string;
}

/**
 * One id a lookup stream asks the platform about (a call whose transcription is wanted, a
 * validation token), with the values its request implies (`{ source: "call" }`).
 */
export interface LookupItem {
  readonly id: string;
  readonly implied: Readonly<Record<string, string>>;
}

/**
 * One slice of work: a date window, the whole resource for a full refresh, or a batch of ids a
 * lookup stream asks about one by one.
 */
export type Slice =
  | { readonly kind: "window"; readonly window: DateWindow }
  | { readonly kind: "full" }
  | { readonly kind: "ids"; readonly items: readonly LookupItem[] };

/** The last day a window covers (its end is exclusive): the platform's inclusive `to` date. */
export function lastDayOf(window: DateWindow): string {
  return addDays(window.end, -1);
}

/** What separates a window label's first day from its end: `2026-08-01..2026-08-02`. */
export const WINDOW_LABEL_SEPARATOR = "..";

/**
 * A window label, as a regular expression's source that JavaScript and PostgreSQL's `~` read
 * alike (groups: the first day, the end); the SQL that matches labels stored in the warehouse uses
 * it too.
 */
export const WINDOW_LABEL_PATTERN = "^([0-9]{4}-[0-9]{2}-[0-9]{2})[.][.]([0-9]{4}-[0-9]{2}-[0-9]{2})$";
const WINDOW_LABEL = new RegExp(WINDOW_LABEL_PATTERN);

/**
 * Text form of a slice: `2026-08-01..2026-08-02` (end exclusive) for a window, `full` for a full
 * refresh, `ids:<count>:<first id>` for a batch of lookups.
 */
export function sliceLabel(slice: Slice): string {
  if (slice.kind === "window") return `${slice.window.start}${WINDOW_LABEL_SEPARATOR}${slice.window.end}`;
  if (slice.kind === "ids") return `ids:${slice.items.length}:${slice.items[0]?.id ?? ""}`;
  return "full";
}

/** Inverse of `sliceLabel`; throws on text it did not produce. */
export function parseSliceLabel(label: string): Slice {
  if (label === "full") return { kind: "full" };
  // A batch of lookups is recorded by its size and first id only: enough for a replay's records.
  const batch = /^ids:\d+:(.*)$/.exec(label);
  if (batch) return { kind: "ids", items: [{ id: batch[1]!, implied: {} }] };
  const match = WINDOW_LABEL.exec(label);
  if (!match || match[1]! >= match[2]!) throw new Error(`not a slice label: ${JSON.stringify(label)}`);
  return { kind: "window", window: { start: match[1]!, end: match[2]! } };
}

/** The window of a date-window slice; a full slice is a programming error for such a stream. */
export function windowOf(slice: Slice, stream: string): DateWindow {
  if (slice.kind !== "window") throw new Error(`stream ${stream} is loaded by date window, not in full`);
  return slice.window;
}
