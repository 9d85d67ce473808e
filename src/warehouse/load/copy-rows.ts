import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { LandingColumn, LoadRow } from "../connection/landing-table.js";
import { COPY_NULL, columnEncoders, fieldEncoder } from "./copy-text-encoding.js";

const CHUNK_CHARS = 256 * 1024;

/**
 * Fields every row shares, already COPY-encoded: `before` the typed columns (e.g. the account)
 * and `after` them (e.g. run id and extraction time), each field followed by a tab.
 */
export interface CopyConstants {
  readonly before: string;
  readonly after: string;
}

/** COPY text of `rows` (constants, typed columns, `_extra`), in chunks of about 256 KB so memory stays flat. */
function* copyChunks(
  columns: readonly LandingColumn[],
  rows: readonly LoadRow[],
  constants: CopyConstants,
): Generator<string> {
  const encoders = columnEncoders(columns);
  const names = columns.map((column) => column.name);
  const encodeExtra = fieldEncoder("jsonb");
  const width = names.length;
  let chunk = "";
  for (const row of rows) {
    let line = constants.before;
    for (let i = 0; i < width; i += 1) line += `${encoders[i]!(row.columns[names[i]!])}\t`;
    line += constants.after;
    line += row.extra === null ? COPY_NULL : encodeExtra(row.extra);
    chunk += `${line}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * COPYs `rows` into `target` (a quoted table name followed by its quoted column list, in the order
 * constants.before, columns, constants.after, `_extra`). Returns the rows the server counted.
 */
export async function copyRows(
  client: pg.PoolClient,
  target: string,
  columns: readonly LandingColumn[],
  rows: readonly LoadRow[],
  constants: CopyConstants = { before: "", after: "" },
): Promise<number> {
  const copy = client.query(copyFrom(`COPY ${target} FROM STDIN`));
  await pipeline(Readable.from(copyChunks(columns, rows, constants)), copy);
  return copy.rowCount;
}
