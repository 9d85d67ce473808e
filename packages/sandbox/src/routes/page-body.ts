import type { CdrType } from "@telecom-etl/platform/cdr.js";
import type { Pagination } from "@telecom-etl/platform/common.js";
import type { PlatformResource } from "@telecom-etl/platform/resource.js";
import type { RowIdentity } from "../faults/row-faults.js";
import { type PageRequest, paginationOf } from "../http/paging.js";
import type { ListStream } from "../list-streams.js";
import { hash32, Rng } from "../prng.js";
import type { RouteContext } from "./route-types.js";

/** A row of a list: its served JSON and its identity (for seeded per-row faults). */
export interface PageRow {
  readonly json: string;
  readonly day: number;
  readonly index: number;
  /** A CDR's direction (its truth line carries it); absent for other rows. */
  readonly direction?: CdrType;
  /**
   * The row's id as the platform knows it (a CDR's call id, a message's id), also when a fault
   * drops it from the served row: truth `/malformed` lines name it, so a child can find its
   * rejected parent. Set where the truth reads a list; absent on the routes' fast paths.
   */
  readonly id?: string;
}

/** A row's fault identity in `stream` of `account`: the key of its seeded row fault, the same on every route. */
export function rowIdentity(
  stream: ListStream,
  account: { readonly index: number },
  row: PageRow,
): RowIdentity {
  return { stream, account: account.index, day: row.day, index: row.index };
}

/** The full list a paginated route serves from. */
export interface RowSource {
  readonly total: number;
  /** Row `i` with its identity (slow path: faults, shuffle). */
  row(i: number): PageRow;
  /** Rows `[start, end)` as buffers of comma-joined JSON (fast path). */
  chunks(start: number, end: number): Buffer[];
}

/** A source over rows already in memory. */
export function arraySource(rows: readonly PageRow[]): RowSource {
  return {
    total: rows.length,
    row: (i) => rows[i]!,
    chunks: (start, end) => [
      Buffer.from(
        rows
          .slice(start, end)
          .map((r) => r.json)
          .join(","),
        "latin1",
      ),
    ],
  };
}

/** How a list page is wrapped. */
export interface ListShape {
  /** The stream whose row faults and drift apply to the rows; null for lists without row faults (owned numbers). */
  readonly stream: ListStream | null;
  /** Name of the array field: `items`, `metrics`, `invoices`. */
  readonly field: string;
  /** Adds `"is_empty": <page has no rows>` before the array (invoices). */
  readonly isEmptyField?: boolean;
  /** JSON members written after the array, before `pagination` (recordings: `"invalid":{...}`; owned numbers: `"doc_types":[...]`). */
  readonly trailer?: string;
  /** Serves the list as `null` instead of `[]` when it has no rows at all (trunks of an account without any). */
  readonly nullWhenEmpty?: boolean;
}

/**
 * How a paged resource's pages are wrapped, from its catalogue envelope: the rows' member
 * (`items`), `is_empty` (`emptyFlag`), `null` for an empty list (`nullable`, unless `nullWhenEmpty`
 * says otherwise), and the values of the envelope's `extra` members, which must be exactly the ones
 * the catalogue declares, in its order. `stream` names the rows' row faults (null: none).
 */
export function listShapeOf(
  resource: PlatformResource,
  stream: ListStream | null,
  options: { readonly extra?: Readonly<Record<string, unknown>>; readonly nullWhenEmpty?: boolean } = {},
): ListShape {
  const envelope = resource.envelope;
  if (envelope.shape !== "paged") throw new Error(`${resource.paths["2024"]} is not a paged list`);
  const declared = Object.keys(envelope.extra ?? {});
  const extra = options.extra ?? {};
  const given = Object.keys(extra);
  if (declared.join() !== given.join())
    throw new Error(
      `${resource.paths["2024"]}: extra members [${given}], the catalogue declares [${declared}]`,
    );
  return {
    stream,
    field: envelope.items,
    isEmptyField: envelope.emptyFlag === true,
    nullWhenEmpty: options.nullWhenEmpty ?? envelope.nullable === true,
    ...(given.length === 0
      ? {}
      : { trailer: given.map((name) => `"${name}":${JSON.stringify(extra[name])}`).join(",") }),
  };
}

const COMMA = Buffer.from(",");

/** Shuffles a page's rows in place, seeded by the world seed and the request's path and query. */
export function shufflePage<T>(context: Pick<RouteContext, "runtime" | "request">, rows: T[]): T[] {
  const rng = new Rng(
    hash32(context.runtime.world.seed, "shuffle", context.request.path, context.request.query.toString()),
  );
  for (let i = rows.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return rows;
}

/** Which rows of the full list a page serves, after page faults (a shifted page, a short page). */
function pageBounds(context: RouteContext, paging: PageRequest, total: number): [number, number] {
  let start = (paging.page - 1) * paging.perPage;
  let end = Math.min(total, start + paging.perPage);
  const { page, salt } = context.faults;
  if (page === "duplicateRow" && start > 0 && start < total) {
    // Rows shifted under the reader: the previous page's last row comes again, one row is skipped.
    start -= 1;
    end -= 1;
    context.runtime.faults.count("duplicateRow");
  } else if (page === "shortPage" && end - start > 1) {
    end -= 1 + (salt % Math.min(3, end - start - 1));
    context.runtime.faults.count("shortPage");
  }
  return [start, Math.max(start, end)];
}

function slowRows(
  context: RouteContext,
  shape: ListShape,
  source: RowSource,
  start: number,
  end: number,
): Buffer[] {
  const { faults } = context.runtime;
  const stream = shape.stream;
  let served: string[] = [];
  for (let i = start; i < end; i++) {
    const row = source.row(i);
    if (stream === null) {
      served.push(row.json);
      continue;
    }
    const changed = faults.serve(rowIdentity(stream, context.account, row), row.json);
    faults.countServed(changed);
    served.push(changed.json);
  }
  if (context.runtime.options.shuffle && served.length > 1) served = shufflePage(context, served);
  return served.length === 0 ? [] : [Buffer.from(served.join(","), "latin1")];
}

/**
 * Serializes one page of a list: `{"<field>":[rows],<trailer>,"pagination":{...}}` (`null` for the
 * rows of an empty list when the shape says so). Applies the request's
 * page fault, the profile's seeded row faults and schema drift, and the `shuffle` option;
 * `pagination.total` is the true total of the list. When the profile changes no row of the stream
 * and nothing is shuffled, rows are copied straight from the source's buffers.
 */
export function servePage(
  context: RouteContext,
  shape: ListShape,
  source: RowSource,
  paging: PageRequest,
): Buffer {
  const [start, end] = pageBounds(context, paging, source.total);
  const alters = shape.stream !== null && context.runtime.faults.altersRows(shape.stream);
  const fast = !alters && !context.runtime.options.shuffle;
  const chunks =
    start >= end ? [] : fast ? source.chunks(start, end) : slowRows(context, shape, source, start, end);
  const pagination: Pagination = paginationOf(paging, source.total);
  const leading = shape.isEmptyField ? `"is_empty":${start >= end},` : "";
  const trailer = shape.trailer === undefined ? "" : `,${shape.trailer}`;
  const tail = `${trailer},"pagination":${JSON.stringify(pagination)}}`;
  if (shape.nullWhenEmpty && source.total === 0) {
    return Buffer.from(`{${leading}"${shape.field}":null${tail}`);
  }
  const parts: Buffer[] = [Buffer.from(`{${leading}"${shape.field}":[`)];
  chunks.forEach((chunk, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(chunk);
  });
  parts.push(Buffer.from(`]${tail}`));
  return Buffer.concat(parts);
}
