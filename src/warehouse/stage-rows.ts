import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { LoadRow } from "../streams/load-row.js";
import type { ColumnSpec } from "../streams/stream-definition.js";
import { COPY_NULL, columnEncoders, fieldEncoder } from "./copy-text-encoding.js";
import { quoteIdent } from "./sql-names.js";

/** Name of the temporary stage table of the current transaction. */
export const STAGE_TABLE = "_etl_stage";

const CHUNK_CHARS = 256 * 1024;

/** COPY text of `rows`, yielded in chunks of about 256 KB so memory stays flat. */
function* copyChunks(columns: readonly ColumnSpec[], rows: readonly LoadRow[]): Generator<string> {
  const encoders = columnEncoders(columns);
  const names = columns.map((column) => column.name);
  const encodeExtra = fieldEncoder("jsonb");
  const width = names.length;
  let chunk = "";
  for (const row of rows) {
    let line = "";
    for (let i = 0; i < width; i += 1) line += `${encoders[i]!(row.columns[names[i]!])}\t`;
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
 * Creates the transaction's temporary stage (the stream's typed columns plus `_extra`, dropped at
 * commit or rollback) and COPYs `rows` into it. A value its column type rejects fails the COPY,
 * and with it the transaction. Must run inside a transaction on `client`.
 */
export async function stageRows(
  client: pg.PoolClient,
  columns: readonly ColumnSpec[],
  rows: readonly LoadRow[],
): Promise<number> {
  const definitions = columns.map((column) => `${quoteIdent(column.name)} ${column.pgType}`);
  await client.query(
    `CREATE TEMP TABLE ${STAGE_TABLE} (${[...definitions, "_extra jsonb"].join(", ")}) ON COMMIT DROP`,
  );
  if (rows.length === 0) return 0;
  const list = [...columns.map((column) => quoteIdent(column.name)), "_extra"].join(", ");
  const copy = client.query(copyFrom(`COPY ${STAGE_TABLE} (${list}) FROM STDIN`));
  await pipeline(Readable.from(copyChunks(columns, rows), { objectMode: false }), copy);
  return copy.rowCount;
}
