import { addDays } from "../utc-days.js";
import type { DateWindow, Slice } from "./stream-definition.js";

/** The text form of a slice that `etl.run_slices.slice` and `etl.rejects.slice` store. */

/** The last day a window covers (its end is exclusive): the platform's inclusive `to` date. */
export function lastDayOf(window: DateWindow): string {
  return addDays(window.end, -1);
}

/** Text form of a slice: `2026-08-01..2026-08-02` (end exclusive) for a window, `full` otherwise. */
export function sliceLabel(slice: Slice): string {
  return slice.kind === "window" ? `${slice.window.start}..${slice.window.end}` : "full";
}

/** Inverse of `sliceLabel`; throws on text it did not produce. */
export function parseSliceLabel(label: string): Slice {
  if (label === "full") return { kind: "full" };
  const match = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/.exec(label);
  if (!match || match[1]! >= match[2]!) throw new Error(`not a slice label: ${JSON.stringify(label)}`);
  return { kind: "window", window: { start: match[1]!, end: match[2]! } };
}

/** The window of a date-window slice; a full slice is a programming error for such a stream. */
export function windowOf(slice: Slice, stream: string): DateWindow {
  if (slice.kind !== "window") throw new Error(`stream ${stream} is loaded by date window, not in full`);
  return slice.window;
}
