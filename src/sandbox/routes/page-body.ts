import type { Pagination } from "../../platform/common.js";
import { hash32, Rng } from "../prng.js";
import type { RouteContext } from "./route-types.js";

/** A row on a page: its served JSON and its identity (for seeded per-row faults). */
export interface PageRow {
  readonly json: string;
  readonly day: number;
  readonly index: number;
}

/** Streams served through paginated lists. */
export type ListStream = "cdrs" | "short_link_metrics" | "invoices";

/** Shuffles a page in place when the sandbox runs with `shuffle`, seeded by the request URL. */
function maybeShuffle<T>(context: RouteContext, rows: T[]): T[] {
  if (!context.runtime.options.shuffle || rows.length < 2) return rows;
  const rng = new Rng(
    hash32(context.runtime.world.seed, "shuffle", context.request.path, context.request.query.toString()),
  );
  for (let i = rows.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return rows;
}

/** Serializes a list page: `{"<field>":[rows],"pagination":{...}}` with optional leading fields. */
export function listBody(
  context: RouteContext,
  _stream: ListStream,
  field: string,
  rows: PageRow[],
  pagination: Pagination,
  leading = "",
): string {
  const served = maybeShuffle(context, rows).map((row) => row.json);
  return `{${leading}"${field}":[${served.join(",")}],"pagination":${JSON.stringify(pagination)}}`;
}
