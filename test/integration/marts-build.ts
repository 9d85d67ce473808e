import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { type Kysely, sql } from "kysely";
import { pino } from "pino";
import { buildAndPublishMarts } from "../../src/transform/build-marts.js";
import type { Publication } from "../../src/transform/publish-marts.js";
import { runDbt, WITHOUT_UNIT_TESTS, warehouseFolder } from "../../src/transform/run-dbt.js";
import { databaseOfUrl } from "../../src/warehouse/admin/bi-reader-role.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import type { Database } from "../../src/warehouse/connection/database.js";
import { expect } from "../helpers/fixtures.js";
import { isSlotDatabaseName } from "../helpers/test-database.js";
import { runAt, sandboxConfig, setSandboxClock } from "./pipeline-harness.js";

/**
 * Loading a sandbox world at a moment and building the marts the way `transform` does, for the
 * tests of the incremental and partitioned marts.
 */

/** The streams the marts are built from. */
const MART_STREAMS = [
  "cdrs",
  "sip_trunks",
  "numbers",
  "transcriptions",
  "recordings",
  "short_link_metrics",
  "messages",
  "invoices",
  "transactions",
  "message_opt_outs",
];

/** Sets the sandbox's clock to `iso` and loads every account's mart streams (`run`), without errors. */
export async function loadMartStreamsAt(
  sandbox: RunningSandbox,
  warehouse: Warehouse,
  iso: string,
): Promise<void> {
  await setSandboxClock(sandbox, iso);
  const base = sandboxConfig(sandbox, { transcriptionMaxAgeDays: 30 });
  const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, streams: MART_STREAMS })) };
  const run = await runAt(warehouse, config, sandbox, { command: "run" });
  expect(run.streams.filter((s) => s.errors.length > 0)).toEqual([]);
}

/** What {@link buildMarts} returns: the publication and the SQL dbt ran as each model's main statement. */
export interface MartsBuilt {
  readonly publication: Publication | undefined;
  /** The main statement dbt ran for `model` (target/run), e.g. an incremental model's merge. */
  readonly mainStatement: (model: string) => Promise<string>;
  /** The select dbt compiled for `model` (target/compiled), as this build ran it. */
  readonly compiledSelect: (model: string) => Promise<string>;
}

/**
 * `dbt build <args>` (without unit tests) in the build schema, then published (write–audit–publish,
 * as `transform`); fails the test when dbt fails. `inspect` runs while dbt's work folder exists.
 */
export async function buildMarts(
  warehouse: Warehouse,
  args: readonly string[],
  inspect?: (built: MartsBuilt) => Promise<void>,
): Promise<Publication | undefined> {
  const { workDir, done } = await dbtFolder(warehouse.url, "build", args);
  try {
    const { dbt, publication } = await buildAndPublishMarts(warehouse, {
      log: pino({ level: "silent" }),
      workDir,
      args: ["build", ...args, ...WITHOUT_UNIT_TESTS],
    });
    expect(dbt.ok, dbt.tail.join("\n")).toBe(true);
    const targetFile = async (folder: "run" | "compiled", model: string) => {
      const dir = path.join(workDir, "target", folder, "telecom_etl", "models");
      const files = await readdir(dir, { recursive: true });
      const file = files.find((f) => path.basename(f) === `${model}.sql`);
      if (file === undefined) throw new Error(`dbt wrote no ${folder} SQL for ${model}`);
      return readFile(path.join(dir, file), "utf8");
    };
    await inspect?.({
      publication,
      mainStatement: (model) => targetFile("run", model),
      compiledSelect: (model) => targetFile("compiled", model),
    });
    return publication;
  } finally {
    await done();
  }
}

/**
 * `dbt build` in place (no write–audit–publish) of the models that read the landing tables of
 * `streams` (`@source:platform.<stream>`: them, what is built from them and what that needs), with
 * the data tests whose every parent is built and without dbt's unit tests; fails the test when dbt
 * fails and returns dbt's counts line. What is left out has no row to build in a world loaded with
 * `streams` only. The unit tests check the models' logic on fixed inputs, the same in every world:
 * marts-campaigns-truth's `transform --unit-tests` runs them.
 */
export async function buildMartsOf(databaseUrl: string, streams: readonly string[]): Promise<string> {
  const { workDir, done } = await dbtFolder(databaseUrl, "in-place", []);
  try {
    const select = streams.map((stream) => `@source:platform.${stream}`);
    const dbt = await runDbt({
      databaseUrl,
      log: pino({ level: "silent" }),
      workDir,
      args: ["build", "--select", ...select, "--indirect-selection", "cautious", ...WITHOUT_UNIT_TESTS],
    });
    expect(dbt.ok, dbt.tail.join("\n")).toBe(true);
    return dbt.summary;
  } finally {
    await done();
  }
}

/**
 * dbt's folder for a build (`kind`: as a build to publish, or in place) of the database at
 * `databaseUrl` with `args`. For a file's own database (named by slot, see claimFileDatabaseName) it
 * is kept from file to file, one per name, kind and `--vars`: dbt's saved parse there (valid for one
 * connection and the same variables) spares the next build a whole parse of the project (8–11 s).
 * Its `target/run` and `target/compiled` are emptied first. Any other database gets a folder of its
 * own, removed by `done`.
 */
async function dbtFolder(
  databaseUrl: string,
  kind: "build" | "in-place",
  args: readonly string[],
): Promise<{ workDir: string; done: () => Promise<void> }> {
  const database = databaseOfUrl(databaseUrl);
  if (!isSlotDatabaseName(database)) {
    const workDir = await mkdtemp(path.join(tmpdir(), `marts-${kind}-dbt-`));
    return { workDir, done: () => rm(workDir, { recursive: true, force: true }) };
  }
  const varsAt = args.indexOf("--vars");
  const vars = varsAt < 0 ? "" : (args[varsAt + 1] ?? "");
  const digest = createHash("sha1").update(vars).digest("hex").slice(0, 8);
  // Named for the server too (its port): two test runs at once never share a folder.
  const workDir = path.join(
    tmpdir(),
    "telecom-etl-test-dbt",
    `${warehouseFolder(databaseUrl)}-${kind}-${digest}`,
  );
  // The SQL a build ran and compiled is read back by name: none may be left from an earlier build.
  for (const folder of ["run", "compiled"]) {
    await rm(path.join(workDir, "target", folder), { recursive: true, force: true });
  }
  await mkdir(workDir, { recursive: true });
  return { workDir, done: async () => {} };
}

/** The relations (tables and partitions, each once, sorted) the plan of `statement` reads. */
export async function relationsPlanned(db: Kysely<Database>, statement: string): Promise<string[]> {
  const plan = await sql<{ "QUERY PLAN": unknown }>`EXPLAIN (FORMAT JSON) ${sql.raw(statement)}`.execute(db);
  const names = [...JSON.stringify(plan.rows[0]!["QUERY PLAN"]).matchAll(/"Relation Name":"([^"]+)"/g)];
  return [...new Set(names.map((m) => m[1]!))].sort();
}
