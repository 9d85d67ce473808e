import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { silentLogger } from "../../src/core/log.js";
import { projectRoot, warehouseFolder } from "../../src/transform/run-dbt.js";
import { startEmbeddedWarehouse } from "../../src/warehouse/connection/embedded-postgres.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/**
 * Issue 33 item 2: dbt never parses the whole project again in a nightly, nor in the next one. Every
 * dbt invocation of two nightlies in a row (build, source freshness, build, source freshness) after
 * the very first reuses the manifest the one before saved (`partial_parse.msgpack` in the
 * warehouse's target folder): dbt's log (at debug level, which names the outcome) says "Partial
 * parsing enabled, no changes found, skipping parsing" for each of them and never "Unable to do
 * partial parsing". A full parse costs 4–8 s of a nightly on two shared cores, twice a night
 * before. The embedded warehouse keeps its port from one night to the next, so its URL (dbt's
 * folder, and the connection dbt's saved parse was made with) stays the same.
 */

/** A nightly runs dbt twice, and dbt is CPU-bound on two shared cores. */
const TIMEOUT_MS = 600_000;

const it = fixtureTest
  .extend(
    "env",
    { scope: "file" },
    ({ rig }): Record<string, string> => ({
      TELECOM_API_URL: rig.apiUrl,
      TELECOM_API_KEY: rig.sandbox.world.accounts[0]!.apiKey,
      DATABASE_URL: rig.db.url,
      TELECOM_ETL_START_DATE: rig.sandbox.world.start,
      TELECOM_ETL_STREAMS: "cdrs,short_link_metrics,invoices",
      // dbt says whether it parsed in part only at debug level; one log file for all four invocations.
      DBT_LOG_LEVEL_FILE: "debug",
      DBT_LOG_FILE_MAX_BYTES: String(1024 ** 3),
    }),
  )
  /** Two nightlies in a row, as two nights' cron jobs run them (dbt's folder for them removed after the file). */
  .extend("nights", { scope: "file" }, async ({ env, rig }, { onCleanup }): Promise<CliResult[]> => {
    onCleanup(() => rm(dbtFolderOf(rig.db.url), { recursive: true, force: true }));
    // The file's database is named by slot: an earlier file's nightly may have left its folder.
    await rm(dbtFolderOf(rig.db.url), { recursive: true, force: true });
    const nights: CliResult[] = [];
    for (let night = 0; night < 2; night++)
      nights.push(await runCli(["nightly"], { env, timeoutMs: TIMEOUT_MS }));
    return nights;
  });
it.override({ sandboxOptions: { seed: 33, days: 2, accounts: 1, callsPerDay: 30, now: "real" } });

/** The folder the CLI runs dbt in for the warehouse at `databaseUrl`. */
function dbtFolderOf(databaseUrl: string): string {
  return path.join(projectRoot(), ".telecom-etl", "dbt", warehouseFolder(databaseUrl));
}

/** One dbt invocation of the log: its command and what dbt said about parsing the project. */
interface Invocation {
  readonly command: string;
  readonly parsing: readonly string[];
}

/** dbt's log file, cut into invocations (each starts "Running with dbt=..."), with their parse lines. */
async function invocationsOf(logFile: string): Promise<Invocation[]> {
  const invocations: { command: string; parsing: string[] }[] = [];
  for (const line of (await readFile(logFile, "utf8")).split("\n")) {
    if (/Running with dbt=/.test(line)) invocations.push({ command: "", parsing: [] });
    const current = invocations.at(-1);
    if (current === undefined) continue;
    const command = /running dbt with arguments .*?'invocation_command': '([^']*)'/.exec(line)?.[1];
    if (command !== undefined && current.command === "") current.command = command;
    if (/partial pars/i.test(line)) current.parsing.push(line.replace(/^[\d:.]+\s+/, ""));
  }
  return invocations;
}

/** The loader's log records (JSON lines on stderr) saying dbt parsed the whole project. */
function fullParsesLogged(night: CliResult): { msg: string; reason: string }[] {
  return night.stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg: string; reason: string })
    .filter((record) => record.msg.endsWith("parsed the whole project"))
    .map(({ msg, reason }) => ({ msg, reason }));
}

describe("partial parsing across nightlies (real dbt)", () => {
  it("two nightlies in a row: every dbt invocation after the first reuses the saved parse", {
    timeout: 2 * TIMEOUT_MS,
  }, async ({ rig, nights }) => {
    for (const night of nights) expect(night.code, night.stderr.slice(-3000)).toBe(0);
    const invocations = await invocationsOf(path.join(dbtFolderOf(rig.db.url), "logs", "dbt.log"));
    expect(invocations.map((i) => /^dbt (build|source freshness) /.exec(i.command)?.[1])).toEqual([
      "build",
      "source freshness",
      "build",
      "source freshness",
    ]);
    const fullParse = /^Unable to do partial parsing because /;
    expect(invocations[0]!.parsing).toEqual([
      "Unable to do partial parsing because saved manifest not found. Starting full parse.",
    ]);
    for (const invocation of invocations.slice(1)) {
      expect(
        invocation.parsing.filter((line) => fullParse.test(line)),
        invocation.command,
      ).toEqual([]);
      expect(invocation.parsing, invocation.command).toContain(
        "Partial parsing enabled, no changes found, skipping parsing",
      );
    }
    // The nightly's own log says when dbt parsed the whole project, and why: the first build only.
    expect(nights.map(fullParsesLogged)).toEqual([
      [
        {
          msg: "dbt build: parsed the whole project",
          reason: "saved manifest not found. Starting full parse.",
        },
      ],
      [],
    ]);
  });

  it("the embedded warehouse starts on the port it had when that is free: the same URL, dbt folder and profile each night", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "telecom-etl-port-"));
    await chmod(dir, 0o755); // the server runs as user postgres when we are root
    // The port of each start's URL (the URL itself holds the server's password).
    const portOfARun = async (): Promise<number> => {
      const warehouse = await startEmbeddedWarehouse({ dir, log: silentLogger });
      await warehouse.stop();
      return Number(new URL(warehouse.url).port);
    };
    try {
      const first = await portOfARun();
      expect(await portOfARun()).toBe(first);
      // Taken by another program meanwhile: the warehouse starts on another port all the same.
      const blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(first, "127.0.0.1", resolve));
      try {
        expect(await portOfARun()).not.toBe(first);
      } finally {
        await new Promise((resolve) => blocker.close(resolve));
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
