/**
 * Which streams the re-count of settled windows checks, and what it asks for one window: derived
 * from the stream's own declaration, never a list written by hand. A stream is re-counted when it
 * is read by date window, its answer is paged (so it carries the platform's `pagination.total`)
 * and its landing table places a row in a window by a column (so the warehouse can count a
 * window's rows): today cdrs (per direction), messages (per direction), recordings,
 * transactions and short_link_metrics.
 */
import type { DateWindow } from "../core/slices.js";
import type { RequestContext, StreamDefinition, StreamRequest } from "./stream-definition.js";

/** One request of a window the re-count asks the total of, and how the warehouse's rows of it are told apart. */
export interface RecountPart {
  /** The request's direction (`placed`, `inbound`), '' for a stream asked once per window. */
  readonly part: string;
  readonly request: StreamRequest;
  /**
   * The landing columns (and values) every row of this request has: the values it implies that
   * are typed columns of the table (a CDR's `direction`); empty when one request lists the window.
   */
  readonly columns: Readonly<Record<string, string>>;
}

/** Whether the re-count checks `stream`: a date-windowed, paged list landing in a table with a window column. */
export function isRecounted(stream: StreamDefinition): boolean {
  return (
    stream.slicing === "date_window" &&
    stream.answer.kind === "pages" &&
    stream.discovery === undefined &&
    stream.table.windowColumn !== undefined
  );
}

/**
 * The requests whose totals the re-count asks for `window` of `stream` (one per direction for
 * CDRs and messages), each with the landing columns its rows are counted by.
 */
export function recountParts(
  stream: StreamDefinition,
  window: DateWindow,
  context: Omit<RequestContext, "discovered">,
): RecountPart[] {
  const requests = stream.requests({ kind: "window", window }, { ...context, discovered: [] });
  const columns = new Set(stream.table.columns.map((c) => c.name));
  const parts = requests.map((request) => {
    const own = Object.entries(request.implied).filter(([name]) => columns.has(name));
    return {
      part: requests.length > 1 ? own.map(([, value]) => value).join("/") : "",
      request,
      columns: requests.length > 1 ? Object.fromEntries(own) : {},
    };
  });
  // Two requests the warehouse cannot tell apart would each be compared with both one's rows.
  if (requests.length > 1 && new Set(parts.map((p) => p.part).filter(Boolean)).size !== requests.length)
    throw new Error(
      `stream ${stream.name}: its requests of a window imply no column that tells their rows apart`,
    );
  return parts;
}
