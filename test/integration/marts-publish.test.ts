import { hostname } from "node:os";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { biReaderRoleFor, databaseOfUrl } from "../../src/warehouse/admin/bi-reader-role.js";
import type { Database } from "../../src/warehouse/connection/database.js";
import { acquireTransformLock, TRANSFORM_LOCK_KEY } from "../../src/warehouse/coordination/transform-lock.js";
import { collect, operatorLines, runCli, spawnCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/**
 * Issue 18, item 13: marts are published only when they pass (write–audit–publish). A build whose
 * error-level test fails exits 5 and BI (the bi_reader role) keeps reading exactly the previous
 * build's rows, which analytics_marts.published_marts still names; once the data is fixed the next
 * transform publishes, BI reads the new rows with its grants, and a second transform started
 * meanwhile is refused with one line. The oracle is what BI read before each build and what the
 * test itself wrote into the landing table.
 */
const PASSWORD = "bi reader's 'pass' word"; // the same as bi-reader-access.test.ts: the role is server-wide
/** dbt is CPU-bound and the suite shares two cores: a build may take minutes under load. */
const DBT_TIMEOUT = { timeout: 400_000 };
const CLI_TIMEOUT_MS = 240_000;
const BOGUS_UUID = "not-from-the-platform";

const it = fixtureTest
  /** The CLI environment of the file: the sandbox's one account, the file's database, bi_reader's password. */
  .extend(
    "env",
    { scope: "file" },
    ({ rig }): Record<string, string> => ({
      TELECOM_API_URL: rig.sandbox.url,
      TELECOM_API_KEY: rig.sandbox.world.accounts[0]!.apiKey,
      DATABASE_URL: rig.db.url,
      TELECOM_ETL_START_DATE: rig.sandbox.world.start,
      TELECOM_ETL_STREAMS: "cdrs,short_link_metrics,invoices",
      TELECOM_ETL_BI_READER_PASSWORD: PASSWORD,
    }),
  );
it.override({ sandboxOptions: { seed: 18, days: 2, accounts: 1, callsPerDay: 30, now: "real" } });

/** Runs `query` as the warehouse's BI role (`<database>_bi_reader`) with its password. */
async function asBiReader<R extends pg.QueryResultRow>(databaseUrl: string, query: string): Promise<R[]> {
  const url = new URL(databaseUrl);
  url.username = biReaderRoleFor(databaseOfUrl(databaseUrl));
  url.password = encodeURIComponent(PASSWORD);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return (await client.query<R>(query)).rows;
  } finally {
    await client.end();
  }
}

/** What BI reads of fct_calls: every row (without its build stamp) hashed, the count, one leg's cost. */
interface CallsSeen {
  readonly rows: number;
  readonly digest: string;
  readonly bogus: number;
  readonly probeCost: string | null;
}

async function callsSeenByBi(databaseUrl: string, probeUuid: string): Promise<CallsSeen> {
  const [row] = await asBiReader<{ rows: number; digest: string; bogus: number; probe_cost: string | null }>(
    databaseUrl,
    `SELECT count(*)::int AS rows,
            md5(string_agg((to_jsonb(f) - 'built_at')::text, '' ORDER BY account, direction, call_uuid)) AS digest,
            count(*) FILTER (WHERE call_uuid = '${BOGUS_UUID}')::int AS bogus,
            max(total_cost_usd) FILTER (WHERE call_uuid = '${probeUuid}')::text AS probe_cost
     FROM analytics_marts.fct_calls AS f`,
  );
  return { rows: row!.rows, digest: row!.digest, bogus: row!.bogus, probeCost: row!.probe_cost };
}

/** The dbt invocation each mart BI sees was published by, as BI reads it. */
async function publishedInvocations(databaseUrl: string): Promise<Set<string>> {
  const rows = await asBiReader<{ dbt_invocation_id: string }>(
    databaseUrl,
    "SELECT dbt_invocation_id FROM analytics_marts.published_marts",
  );
  return new Set(rows.map((r) => r.dbt_invocation_id));
}

async function publications(db: Kysely<Database>) {
  return db.selectFrom("etl.published_marts").selectAll().orderBy("id").execute();
}

/** Resolves once some session holds the transform lock. */
/**
 * Waits until the transform CLI process `pid` holds the transform lock in THIS database: advisory
 * locks are per database, and other test files' transforms hold the same key in theirs.
 */
async function transformLockTaken(
  db: Kysely<Database>,
  pid: number | undefined,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const held = await sql<{ held: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_locks l
      JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((l.classid::bigint << 32) | l.objid::bigint) = ${TRANSFORM_LOCK_KEY}::bigint
        AND a.application_name LIKE ${`telecom-etl transform pid ${pid}@%`}) AS held`.execute(db);
    if (held.rows[0]?.held) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`transform pid ${pid} did not take its lock`);
}

describe("write–audit–publish of the marts (CLI, real dbt)", () => {
  it(
    "a failing test publishes nothing (exit 5, BI keeps the previous build); the fixed data is published, a concurrent transform is refused",
    DBT_TIMEOUT,
    async ({ rig, env }) => {
      const db = rig.db.warehouse.db;
      const loaded = await runCli(["run"], { env, timeoutMs: CLI_TIMEOUT_MS });
      expect(loaded.code, loaded.stderr.slice(-2000)).toBe(0);
      const first = await runCli(["transform"], { env, timeoutMs: CLI_TIMEOUT_MS });
      expect(first.code, first.stderr.slice(-3000)).toBe(0);
      expect(first.stdout).toMatch(
        /^marts published: \d+, published \S+ \(transform, dbt invocation \S+\)$/m,
      );
      const [firstPublication, ...others] = await publications(db);
      expect(others).toEqual([]);
      expect(firstPublication!.marts).toContain("fct_calls");
      expect(firstPublication!.run_id).toBeNull();
      expect(await publishedInvocations(rig.db.url)).toEqual(new Set([firstPublication!.dbt_invocation_id]));

      // A billable leg whose cost the next build would change, and a leg the platform never sent
      // with a charge no rule accepts (fct_calls' column_rules test fails at error level).
      const probe = await sql<{ uuid: string; charge: string }>`
        SELECT uuid, charge::text AS charge FROM platform.cdrs
        WHERE charge > 0 ORDER BY uuid LIMIT 1`.execute(db);
      const { uuid: probeUuid, charge } = probe.rows[0]!;
      const newCharge = (Number(charge) + 1.25).toFixed(4);
      const before = await callsSeenByBi(rig.db.url, probeUuid);
      expect(before.bogus).toBe(0);
      expect(before.rows).toBeGreaterThan(10);
      await sql`UPDATE platform.cdrs SET charge = ${newCharge}::numeric WHERE uuid = ${probeUuid}`.execute(
        db,
      );
      await sql`
        INSERT INTO platform.cdrs SELECT (c).* FROM (
          SELECT jsonb_populate_record(t, jsonb_build_object('uuid', ${BOGUS_UUID}::text, 'charge', -1000000)) AS c
          FROM platform.cdrs t WHERE t.uuid = ${probeUuid}) AS one`.execute(db);

      // (a) The failing build: exit 5, and BI reads exactly the previous build (no bogus leg, the
      // probe's old cost, the same rows), which the publication record still names...
      const failed = await runCli(["transform"], { env, timeoutMs: CLI_TIMEOUT_MS });
      expect(failed.code, failed.stderr.slice(-3000)).toBe(5);
      expect(await callsSeenByBi(rig.db.url, probeUuid)).toEqual(before);
      expect((await publications(db)).map((p) => p.id)).toEqual([firstPublication!.id]);
      expect(await publishedInvocations(rig.db.url)).toEqual(new Set([firstPublication!.dbt_invocation_id]));
      // The failed build stays out of BI's sight (42501: no USAGE on the build schema)...
      await expect(
        asBiReader(rig.db.url, "SELECT 1 FROM analytics_marts__build.fct_calls LIMIT 1"),
      ).rejects.toMatchObject({ code: "42501" });
      // ...and one line names the failing test and the build BI keeps.
      const kept = `marts not published: BI keeps the marts published ${new Date(firstPublication!.published_at).toISOString()} (transform, dbt invocation ${firstPublication!.dbt_invocation_id})`;
      expect(operatorLines(failed.stderr)).toEqual([
        expect.stringMatching(
          /^telecom-etl: dbt build failed: test column_rules_fct_calls \(Got \d+ results?/,
        ),
      ]);
      expect(operatorLines(failed.stderr)[0]).toContain(`; ${kept}`);
      expect(failed.stdout).not.toMatch(/marts published/);

      // (b) + (c) The data fixed, a transform runs; a query of BI's holds fct_calls while it does, so
      // the build is still waiting to publish when a second transform starts: that one is refused.
      await sql`DELETE FROM platform.cdrs WHERE uuid = ${BOGUS_UUID}`.execute(db);
      const biQuery = new pg.Client({ connectionString: rig.db.url });
      await biQuery.connect();
      let fixed: Promise<Awaited<ReturnType<typeof collect>>>;
      try {
        await biQuery.query("BEGIN");
        await biQuery.query("LOCK TABLE analytics_marts.fct_calls IN ACCESS SHARE MODE");
        const running = spawnCli(["transform"], { env });
        fixed = collect(running, CLI_TIMEOUT_MS);
        await transformLockTaken(db, running.pid);
        const second = await runCli(["transform"], { env, timeoutMs: 120_000 });
        expect(second.code, second.stderr.slice(-2000)).toBe(4);
        expect(operatorLines(second.stderr)).toEqual([
          `telecom-etl: another transform is building the marts (pid ${running.pid} on host ${hostname()}, run none (transform)); wait for it to finish, or give --lock-timeout <seconds> to wait`,
        ]);
        expect(second.stdout).not.toMatch(/dbt build/);
      } finally {
        await biQuery.query("ROLLBACK");
        await biQuery.end();
      }
      const published = await fixed;
      expect(published.code, published.stderr.slice(-3000)).toBe(0);

      const seen = await callsSeenByBi(rig.db.url, probeUuid);
      expect(seen.bogus).toBe(0);
      expect(seen.rows).toBe(before.rows);
      expect(Number(seen.probeCost)).toBeCloseTo(Number(before.probeCost) + 1.25, 6);
      const all = await publications(db);
      expect(all).toHaveLength(2);
      expect(all[1]!.dbt_invocation_id).not.toBe(firstPublication!.dbt_invocation_id);
      expect(await publishedInvocations(rig.db.url)).toEqual(new Set([all[1]!.dbt_invocation_id]));
      // The grants dbt gave the marts in the build schema, and their comments, came with them.
      const marts = await sql<{ name: string; comment: string | null }>`
        SELECT format('%I.%I', n.nspname, c.relname) AS name, obj_description(c.oid, 'pg_class') AS comment
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'analytics_marts' AND c.relkind IN ('r', 'p', 'v') AND NOT c.relispartition
        ORDER BY 1`.execute(db);
      expect(marts.rows.length).toBe(all[1]!.marts.length + 1); // + the published_marts view
      for (const { name, comment } of marts.rows) {
        expect(await asBiReader(rig.db.url, `SELECT * FROM ${name} LIMIT 1`), name).toBeDefined();
        expect(comment, name).toBeTruthy();
      }
      const leftovers = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_namespace
        WHERE nspname = 'analytics_marts__build'`.execute(db);
      expect(leftovers.rows[0]?.n).toBe(0);
      // The publication kept the incremental marts it replaced for the next build, where BI cannot
      // read them (no USAGE on that schema).
      const keptCalls = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'analytics_marts__previous' AND c.relname = 'fct_calls'`.execute(db);
      expect(keptCalls.rows[0]?.n).toBe(1);
      await expect(
        asBiReader(rig.db.url, "SELECT 1 FROM analytics_marts__previous.fct_calls LIMIT 1"),
      ).rejects.toMatchObject({ code: "42501" });
    },
  );

  it("a transform given --lock-timeout waits for the lock and takes it once it is free", async ({ rig }) => {
    const holder = await acquireTransformLock(rig.db.warehouse, { timeoutMs: 0 });
    try {
      const refused = await acquireTransformLock(rig.db.warehouse, { timeoutMs: 0 }).then(
        async (lock) => {
          await lock.release();
          return "taken";
        },
        (error: Error) => error.message,
      );
      expect(refused).toMatch(/^another transform is building the marts \(pid \d+ on host /);
      const waiting = acquireTransformLock(rig.db.warehouse, { timeoutMs: 30_000, pollMs: 50 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.release();
      const taken = await waiting;
      await taken.release();
    } finally {
      await holder.release();
    }
  });
});
