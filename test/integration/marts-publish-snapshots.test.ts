import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import pg from "pg";
import { olderSnapshots } from "../../src/transform/older-snapshots.js";
import { biReaderRoleFor, databaseOfUrl } from "../../src/warehouse/admin/bi-reader-role.js";
import { connectWarehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { type CliResult, collect, operatorLines, runCli, spawnCli, stderrLine } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { dropDatabaseAndRole } from "../helpers/test-database.js";
import { setSandboxClock } from "./pipeline-harness.js";

/**
 * Issue 32 item 12: a REPEATABLE READ session whose snapshot was taken before a build committed
 * its rows found every published mart empty once the build was published (the catalog names the
 * new tables; the snapshot sees none of their rows). The publication now waits, bounded, until no
 * such snapshot is left: that session reads the previous marts' row counts until it ends, then a
 * new session reads the new ones; an idle READ COMMITTED session in an open transaction does not
 * hold the publication up; a snapshot that outlives the wait leaves the marts unpublished (exit 5,
 * one line) and BI keeps the previous ones. Real dbt through the CLI's `transform`. Which sessions
 * count is checked on real sessions too, as a superuser and as a warehouse user that cannot see
 * other roles' sessions.
 */
const PASSWORD = "bi reader's 'pass' word"; // the same as bi-reader-access.test.ts: the role is server-wide
/** dbt is CPU-bound and the suite shares two cores: three builds may take minutes under load. */
const DBT_TIMEOUT = { timeout: 900_000 };
const CLI_TIMEOUT_MS = 300_000;
/** The marts issue 32 saw empty: calls, daily KPIs, messages, accounts, campaign totals. */
const MARTS = ["fct_calls", "rpt_call_kpis_daily", "fct_messages", "dim_accounts", "rpt_campaign_totals"];
const FIRST_NIGHT = "2026-08-02T06:00:00Z";
const SECOND_NIGHT = "2026-08-04T06:00:00Z";

const it = fixtureTest.extend(
  "env",
  { scope: "file" },
  ({ rig }): Record<string, string> => ({
    TELECOM_API_URL: rig.sandbox.url,
    TELECOM_API_KEY: rig.sandbox.world.accounts[0]!.apiKey,
    DATABASE_URL: rig.db.url,
    TELECOM_ETL_START_DATE: "2026-08-01",
    TELECOM_ETL_STREAMS: "cdrs,messages,short_link_metrics",
    TELECOM_ETL_BI_READER_PASSWORD: PASSWORD,
  }),
);
it.override({ sandboxOptions: { seed: 32, start: "2026-08-01", days: 3, accounts: 1, callsPerDay: 30 } });

/** A session of the warehouse's BI role, as a BI tool opens one. */
async function biSession(databaseUrl: string): Promise<pg.Client> {
  const url = new URL(databaseUrl);
  url.username = biReaderRoleFor(databaseOfUrl(databaseUrl));
  url.password = encodeURIComponent(PASSWORD);
  const client = new pg.Client({ connectionString: url.toString() });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** Row counts of {@link MARTS} as `client` sees them. */
async function martCounts(client: pg.Client): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const mart of MARTS) {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM analytics_marts.${mart}`,
    );
    counts[mart] = rows[0]!.n;
  }
  return counts;
}

/** Row counts of {@link MARTS} in a new session. */
async function freshCounts(databaseUrl: string): Promise<Record<string, number>> {
  const client = await biSession(databaseUrl);
  try {
    return await martCounts(client);
  } finally {
    await client.end();
  }
}

/** Loads the sandbox's days up to `iso` (`run`, the loader's clock and the platform's at `iso`). */
async function loadUpTo(env: Record<string, string>, sandbox: RunningSandbox, iso: string): Promise<void> {
  await setSandboxClock(sandbox, iso);
  const loaded = await runCli(["run"], { env: { ...env, TELECOM_ETL_NOW: iso }, timeoutMs: CLI_TIMEOUT_MS });
  expect(loaded.code, loaded.stderr.slice(-2000)).toBe(0);
}

/**
 * Starts `transform` and resolves once it either logs that its publication waits for an older
 * snapshot or ends (without the wait it publishes at once): the moment a BI query would run.
 */
async function transformUntilWaiting(
  env: Record<string, string>,
): Promise<{ waiting: boolean; done: Promise<CliResult> }> {
  const running = spawnCli(["transform"], { env });
  const done = collect(running, CLI_TIMEOUT_MS);
  const waiting = await stderrLine(running, /"msg":"publication waits for 1 session/).then(
    () => true,
    () => false,
  );
  return { waiting, done };
}

describe("a snapshot-consistent BI session across a publication (CLI, real dbt)", () => {
  it(
    "reads the previous marts until it ends, then a new session reads the new ones; a snapshot outliving the wait leaves them unpublished",
    DBT_TIMEOUT,
    async ({ rig, env }) => {
      const db = rig.db.warehouse.db;
      await loadUpTo(env, rig.sandbox, FIRST_NIGHT);
      const first = await runCli(["transform"], { env, timeoutMs: CLI_TIMEOUT_MS });
      expect(first.code, first.stderr.slice(-3000)).toBe(0);
      const before = await freshCounts(rig.db.url);
      expect(before.fct_calls).toBeGreaterThan(0);
      expect(before.fct_messages).toBeGreaterThan(0);
      await loadUpTo(env, rig.sandbox, SECOND_NIGHT);

      // A BI tool's REPEATABLE READ transaction takes its snapshot (reading no mart yet) before the
      // build; another BI session sits idle in a READ COMMITTED transaction all along.
      const repeatable = await biSession(rig.db.url);
      const idle = await biSession(rig.db.url);
      let published: CliResult;
      try {
        await repeatable.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
        // Its first statement takes the snapshot; it touches no mart, so it holds no lock the
        // publication would wait for.
        await repeatable.query("SELECT now()");
        await idle.query("BEGIN");
        await idle.query("SELECT 1");
        const transform = await transformUntilWaiting(env);
        expect(transform.waiting, "the publication did not wait for the older snapshot").toBe(true);
        // What the snapshot reads now, and after the build (there is only one answer: the previous marts).
        expect(await martCounts(repeatable)).toEqual(before);
        await repeatable.query("COMMIT");
        published = await transform.done;
        expect(published.code, published.stderr.slice(-3000)).toBe(0);
        // The idle READ COMMITTED transaction is still open: it did not hold the publication up.
        expect((await idle.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
        // ...and, READ COMMITTED, it reads the new marts.
        const after = await martCounts(idle);
        expect(after.fct_calls).toBeGreaterThan(before.fct_calls!);
        expect(after.fct_messages).toBeGreaterThan(before.fct_messages!);
        expect(await freshCounts(rig.db.url)).toEqual(after);
        await idle.query("COMMIT");
      } finally {
        await repeatable.end();
        await idle.end();
      }
      expect(published.stderr).toContain('"msg":"publication: the older snapshots ended"');

      // A snapshot that never ends within the wait: nothing published, exit 5, one line; BI keeps
      // the marts it had (the same publication, the same rows).
      const publications = async () =>
        (await sql<{ id: string }>`SELECT id::text AS id FROM etl.published_marts ORDER BY id`.execute(db))
          .rows;
      const published2 = await publications();
      const kept = await freshCounts(rig.db.url);
      const dir = await mkdtemp(path.join(tmpdir(), "telecom-etl-snapshots-"));
      await writeFile(path.join(dir, "telecom-etl.yaml"), "publish_snapshot_wait_seconds: 3\n");
      const stuck = await biSession(rig.db.url);
      try {
        await stuck.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
        await stuck.query("SELECT 1");
        const refused = await runCli(["transform"], {
          env: { ...env, TELECOM_ETL_CONFIG: path.join(dir, "telecom-etl.yaml") },
          timeoutMs: CLI_TIMEOUT_MS,
        });
        expect(refused.code, refused.stderr.slice(-3000)).toBe(5);
        const pid = (await stuck.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
        expect(operatorLines(refused.stderr)).toEqual([
          expect.stringMatching(
            new RegExp(
              `^telecom-etl: marts built and tested but not published: 1 session \\(pid ${pid} of \\S+_bi_reader since \\S+\\) kept a snapshot from before the build through the 3 s wait .*BI still sees the previous marts`,
            ),
          ),
        ]);
        expect(await martCounts(stuck)).toEqual(kept);
      } finally {
        await stuck.end();
      }
      expect(await publications()).toEqual(published2);
      expect(await freshCounts(rig.db.url)).toEqual(kept);
    },
  );

  it("waits for snapshots from before the build and for hidden sessions inside a transaction; not for idle sessions, READ COMMITTED between statements, later snapshots or the loader's", async ({
    createDatabase,
    onTestFinished,
  }) => {
    const database = await createDatabase();
    const clients: pg.Client[] = [];
    onTestFinished(async () => {
      for (const client of clients) await client.end().catch(() => {});
    });
    const session = async (statements: readonly string[], applicationName?: string) => {
      const client = new pg.Client({
        connectionString: database.url,
        ...(applicationName === undefined ? {} : { application_name: applicationName }),
      });
      client.on("error", () => {});
      await client.connect();
      clients.push(client);
      for (const statement of statements) await client.query(statement);
      return (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    };
    const repeatable = ["BEGIN ISOLATION LEVEL REPEATABLE READ", "SELECT now()"];
    const older = await session(repeatable);
    const readCommitted = await session(["BEGIN", "SELECT now()"]);
    const idle = await session([]);
    await session(repeatable, "telecom-etl run 7 pid 1@host");
    const builtAt = (
      await sql<{ at: string }>`SELECT clock_timestamp()::text AS at`.execute(database.warehouse.db)
    ).rows[0]!.at;
    const later = await session(repeatable);
    const seen = await olderSnapshots(database.warehouse.db, builtAt);
    expect(seen.map((s) => [s.pid, s.hidden])).toEqual([[older, false]]);

    // A warehouse user that may not see other roles' sessions (neither superuser nor
    // pg_read_all_stats) cannot tell a snapshot from an idle READ COMMITTED transaction: every one
    // inside a transaction counts, a session outside one does not.
    const owner = `${database.name}_owner`;
    await sql`CREATE ROLE ${sql.id(owner)} LOGIN PASSWORD 'owner'`.execute(database.warehouse.db);
    onTestFinished(() => dropDatabaseAndRole(database.name, owner));
    await sql`GRANT CONNECT ON DATABASE ${sql.id(database.name)} TO ${sql.id(owner)}`.execute(
      database.warehouse.db,
    );
    const asOwner = new URL(database.url);
    asOwner.username = owner;
    asOwner.password = "owner";
    const unprivileged = await connectWarehouse(asOwner.toString());
    try {
      const hidden = await olderSnapshots(unprivileged.db, builtAt);
      expect(hidden.every((s) => s.hidden)).toBe(true);
      expect(hidden.map((s) => s.pid).sort()).toEqual([older, readCommitted, later].sort());
      expect(hidden.map((s) => s.pid)).not.toContain(idle);
    } finally {
      await unprivileged.close();
    }
  });
});
