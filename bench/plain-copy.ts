/**
 * The baseline the load benchmarks divide by: a plain COPY of CDR rows (the repo's COPY text
 * encoders, one transaction per window, nothing else) into a table shaped like `platform.cdrs`.
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { from as copyFrom } from "pg-copy-streams";
import { cdrsStream } from "../src/streams/cdrs.js";
import type { LoadRow } from "../src/streams/load-row.js";
import type { Warehouse } from "../src/warehouse/connection/connect-warehouse.js";
import { COPY_NULL, columnEncoders, fieldEncoder } from "../src/warehouse/load/copy-text-encoding.js";

/** COPY text of `rows` in chunks of about 256 KB: `_account`, the stream's columns, `_run_id`, `_extracted_at`, `_extra`. */
function* copyChunks(rows: readonly LoadRow[], account: string, extractedAt: string): Generator<string> {
  const names = cdrsStream.columns.map((c) => c.name);
  const encoders = columnEncoders(cdrsStream.columns);
  const encodeExtra = fieldEncoder("jsonb");
  const encodedAccount = fieldEncoder("text")(account);
  let chunk = "";
  for (const row of rows) {
    let line = `${encodedAccount}\t`;
    for (let i = 0; i < names.length; i += 1) line += `${encoders[i]!(row.columns[names[i]!])}\t`;
    chunk += `${line}1\t${extractedAt}\t${row.extra === null ? COPY_NULL : encodeExtra(row.extra)}\n`;
    if (chunk.length > 256 * 1024) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk) yield chunk;
}

/** One plain COPY per window (same text encoding as the loader) into `table`, each in its own transaction. */
export async function plainCopy(
  warehouse: Warehouse,
  windows: readonly (readonly LoadRow[])[],
  options: { readonly table?: string; readonly account?: string } = {},
): Promise<void> {
  const table = options.table ?? "bench.cdrs_copy";
  const account = options.account ?? "bench";
  const extractedAt = new Date().toISOString();
  const list = ["_account", ...cdrsStream.columns.map((c) => c.name), "_run_id", "_extracted_at", "_extra"];
  for (const rows of windows) {
    const client = await warehouse.pool.connect();
    try {
      await client.query("BEGIN");
      await pipeline(
        Readable.from(copyChunks(rows, account, extractedAt)),
        client.query(copyFrom(`COPY ${table} (${list.join(", ")}) FROM STDIN`)),
      );
      await client.query("COMMIT");
    } finally {
      client.release();
    }
  }
}
