import { rename, writeFile } from "node:fs/promises";
import type { EtlConfig } from "../config/config.js";
import { UsageError } from "../core/errors.js";
import { landingTables, trackedKinds } from "../streams/registry.js";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";
import { missingMarts, readMartsFacts } from "./marts-facts.js";
import { readNightFacts } from "./night-facts.js";
import { nightPage } from "./night-page.js";
import { checkReportPath } from "./report-path.js";

/** What the written page is about, for the command's one line. */
export interface WrittenReport {
  readonly path: string;
  readonly runId: number | null;
  readonly martsBuilt: boolean;
  readonly bytes: number;
}

/**
 * Reads the night from the warehouse (run `runId`, default the latest) and the marts, renders the
 * page and writes it to `file` (through a temporary file and a rename, so a reader never sees half
 * a page). Marts that are not built yet make the page say so; they are no error.
 */
export async function writeNightReport(
  warehouse: Warehouse,
  config: EtlConfig,
  options: { readonly file: string; readonly now: number; readonly runId?: number },
): Promise<WrittenReport> {
  const file = await checkReportPath(options.file);
  const night = await readNightFacts(warehouse.db, {
    now: options.now,
    ...(options.runId === undefined ? {} : { runId: options.runId }),
    configured: config.accounts.flatMap((a) => a.streams.map((stream) => ({ account: a.name, stream }))),
    tables: landingTables(),
    trackedKinds: trackedKinds(),
  });
  if (options.runId !== undefined && night.run === null)
    throw new UsageError(`report: there is no run ${options.runId} in etl.runs; see telecom-etl status`);
  const marts = await readMartsFacts(warehouse.db);
  const missing = marts === null ? await missingMarts(warehouse.db) : [];
  const html = nightPage({
    night,
    marts,
    missingMarts: missing,
    now: options.now,
    warehouse: warehouse.where,
  });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, html, "utf8");
  await rename(temporary, file);
  return {
    path: file,
    runId: night.run?.id ?? null,
    martsBuilt: marts !== null,
    bytes: Buffer.byteLength(html),
  };
}
