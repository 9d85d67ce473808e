import { readFile } from "node:fs/promises";
import path from "node:path";
import { sql } from "kysely";
import { pino } from "pino";
import { setUpBiReaderRole } from "../../src/warehouse/admin/bi-reader-role.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { defaultMigrationsDir } from "../../src/warehouse/connection/migrate.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMarts } from "./marts-build.js";
import { runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";

/**
 * Migration 0021 on a warehouse whose marts were published before the glossary's names: the
 * incremental marts (fct_calls, rpt_call_kpis_daily, audit_call_rates) had `sip_trunk`,
 * rpt_load_completeness had `day`, and fct_calls' key was a unique index, not a primary key. The
 * warehouse is loaded and built twice (a full refresh, then a nightly build, so the full refresh's
 * tables are kept in analytics_marts__previous); its published and kept marts are then given the
 * old names and the old index (this dbt project builds only the new ones), as the release before
 * 0021 left them, and the migration's SQL is run on them. (The warehouse itself is migrated to the
 * latest schema first: today's loader, which loads the rows, needs the tables of later migrations.)
 * After the migration a nightly build continues from the kept tables: their settled days are not
 * re-built, and each leg's placing_trunk_name and each day's per-trunk attempts still equal the
 * sandbox's truth (without the rename, dbt would add the new column empty beside the old one on
 * every settled day).
 */
const ACCOUNT = "master";
const START = "2026-08-01";
const MARTS = "analytics_marts";
const KEPT = "analytics_marts__previous";
const RENAMED = [
  { table: "fct_calls", from: "sip_trunk", to: "placing_trunk_name" },
  { table: "rpt_call_kpis_daily", from: "sip_trunk", to: "placing_trunk_name" },
  { table: "rpt_call_kpis_daily_local", from: "sip_trunk", to: "placing_trunk_name" },
  { table: "audit_call_rates", from: "sip_trunk", to: "placing_trunk_name" },
  { table: "rpt_load_completeness", from: "day", to: "window_date" },
  { table: "rpt_call_cost_daily", from: "calls", to: "legs" },
  { table: "rpt_call_cost_daily", from: "answered_calls", to: "answered_legs" },
  { table: "rpt_call_volume_hourly", from: "calls", to: "legs" },
  { table: "rpt_call_volume_hourly", from: "answered_calls", to: "answered_legs" },
  { table: "rpt_call_volume_hourly", from: "carried_in_calls", to: "carried_in_legs" },
  { table: "rpt_call_volume_hourly", from: "peak_concurrent_calls", to: "peak_concurrent_legs" },
] as const;

it.override({ sandboxOptions: { seed: 23, start: START, days: 6, accounts: 1, callsPerDay: 60 } });

async function build(warehouse: Warehouse, args: readonly string[]): Promise<readonly string[]> {
  return (await buildMarts(warehouse, args))?.marts ?? [];
}

/** Epoch ms of a platform timestamp (UTC; the CDR form has no zone designator). */
function utcInstant(value: unknown): number {
  const text = String(value).replace(" ", "T");
  return Date.parse(/[Zz]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
}

/** The columns of `schema.table` that are named `names`. */
async function columnsNamed(warehouse: Warehouse, schema: string, table: string, names: readonly string[]) {
  const { rows } = await sql<{ name: string }>`
    SELECT attname::text AS name FROM pg_attribute
    WHERE attrelid = to_regclass(${`${schema}.${table}`}) AND attnum > 0 AND NOT attisdropped
      AND attname = ANY(${names as string[]}) ORDER BY attname`.execute(warehouse.db);
  return rows.map((r) => r.name);
}

/** fct_calls' indexes on its key columns in `schema`, each as `<is primary> <columns>`. */
async function keyIndexes(warehouse: Warehouse, schema: string): Promise<string[]> {
  const { rows } = await sql<{ line: string }>`
    SELECT x.indisprimary::text || ' ' || string_agg(a.attname, ',' ORDER BY k.ord) AS line
    FROM pg_index AS x
    CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k (attnum, ord)
    JOIN pg_attribute AS a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
    WHERE x.indrelid = to_regclass(${`${schema}.fct_calls`}) AND x.indisunique
    GROUP BY x.indexrelid, x.indisprimary ORDER BY 1`.execute(warehouse.db);
  return rows.map((r) => r.line);
}

describe("migration 0021: mart columns renamed to the glossary", () => {
  it("renames the published and kept marts' columns, so the next nightly build keeps their rows", {
    timeout: 600_000,
  }, async ({ sandbox, createDatabase }) => {
    const database = await createDatabase();
    const warehouse = database.warehouse;
    const db = warehouse.db;
    // As every command that migrates does: dbt grants the marts to this role.
    await setUpBiReaderRole(db, { log: pino({ level: "silent" }) });
    const base = sandboxConfig(sandbox);
    const config = {
      ...base,
      accounts: base.accounts.map((a) => ({ ...a, streams: ["cdrs", "sip_trunks"] })),
    };
    const run = await runAt(warehouse, config, sandbox, { command: "run" });
    expect(run.streams.filter((s) => s.errors.length > 0)).toEqual([]);
    // The previous version built fct_calls as a plain table (not partitioned by month).
    const plainFacts = ["--vars", "{partition_facts: false}"];
    await build(warehouse, ["--full-refresh", ...plainFacts]);
    const fullRefreshStamp = (
      await sql<{ at: string }>`SELECT max(built_at)::text AS at FROM analytics_marts.fct_calls`.execute(db)
    ).rows[0]?.at;
    const fullRefreshTable = (
      await sql<{
        oid: string;
      }>`SELECT to_regclass('analytics_marts.fct_calls')::oid::int8::text AS oid`.execute(db)
    ).rows[0]?.oid;
    expect(await build(warehouse, plainFacts)).toContain("fct_calls");

    // The warehouse as the previous version published it: the old names, fct_calls' key a unique index.
    for (const schema of [MARTS, KEPT]) {
      for (const { table, from, to } of RENAMED) {
        if ((await columnsNamed(warehouse, schema, table, [to])).length === 0) continue; // a table mart is not kept
        await sql`ALTER TABLE ${sql.id(schema, table)} RENAME COLUMN ${sql.id(to)} TO ${sql.id(from)}`.execute(
          db,
        );
      }
      await sql`ALTER TABLE ${sql.id(schema, "fct_calls")} DROP CONSTRAINT fct_calls_pkey`.execute(db);
      await sql`CREATE UNIQUE INDEX ON ${sql.id(schema, "fct_calls")} (account, direction, call_uuid)`.execute(
        db,
      );
      expect(await keyIndexes(warehouse, schema)).toEqual(["false account,direction,call_uuid"]);
    }
    expect(await columnsNamed(warehouse, KEPT, "fct_calls", ["placing_trunk_name", "sip_trunk"])).toEqual([
      "sip_trunk",
    ]);

    const migration = await readFile(
      path.join(defaultMigrationsDir(), "0021_rename_mart_columns.sql"),
      "utf8",
    );
    await sql.raw(migration).execute(db);
    for (const schema of [MARTS, KEPT]) {
      for (const { table, from, to } of RENAMED) {
        const found = await columnsNamed(warehouse, schema, table, [from, to]);
        if (schema === KEPT && found.length === 0) continue;
        expect(found, `${schema}.${table}`).toEqual([to]);
      }
      // The unique index became the primary key: no second index on the key.
      expect(await keyIndexes(warehouse, schema)).toEqual(["true account,direction,call_uuid"]);
    }

    await build(warehouse, []);
    // The nightly build (of this version, which partitions fct_calls) continued from the kept
    // full-refresh table (the same relation, plain, published again: a plain fct_calls becomes
    // partitioned at its next --full-refresh), and the days before its settle window are still the rows the full refresh wrote.
    const published = await sql<{ oid: string; kept: number; legs: number }>`
      SELECT to_regclass('analytics_marts.fct_calls')::oid::int8::text AS oid,
             count(*) FILTER (WHERE built_at = ${fullRefreshStamp}::timestamptz)::int AS kept,
             count(*)::int AS legs
      FROM analytics_marts.fct_calls`.execute(db);
    expect(published.rows[0]?.oid).toBe(fullRefreshTable);
    expect(published.rows[0]?.kept).toBeGreaterThan(0);
    expect(await keyIndexes(warehouse, MARTS)).toEqual(["true account,direction,call_uuid"]);
    for (const { table, from, to } of RENAMED) {
      expect(await columnsNamed(warehouse, MARTS, table, [from, to]), table).toEqual([to]);
    }

    // Oracle: the sandbox's truth CDRs (placed legs carry their trunk as sip_trunk).
    const cdrs = await truthRecords(sandbox, "cdrs", ACCOUNT, { from: START, to: "2026-08-07" });
    expect(published.rows[0]?.legs).toBe(cdrs.length);
    const placed = cdrs.filter((cdr) => (cdr.sip_trunk ?? null) !== null);
    expect(placed.length).toBeGreaterThan(0);
    const expectedLegs = placed
      .map((cdr) => `${String(cdr.uuid ?? cdr.call_id)} ${String(cdr.sip_trunk)}`)
      .sort();
    const legs = await sql<{ line: string }>`
      SELECT call_uuid || ' ' || placing_trunk_name AS line FROM analytics_marts.fct_calls
      WHERE placing_trunk_name IS NOT NULL ORDER BY 1`.execute(db);
    expect(legs.rows.map((r) => r.line).sort()).toEqual(expectedLegs);

    const attempts = new Map<string, number>();
    for (const cdr of placed) {
      if ((cdr.parent_uuid ?? cdr.parent_call_id ?? null) !== null) continue;
      const day = new Date(utcInstant(cdr.date)).toISOString().slice(0, 10);
      const key = `${day} ${String(cdr.sip_trunk)}`;
      attempts.set(key, (attempts.get(key) ?? 0) + 1);
    }
    const daily = await sql<{ line: string }>`
      SELECT call_date::text || ' ' || placing_trunk_name || ' ' || sum(root_call_attempts)::int AS line
      FROM analytics_marts.rpt_call_kpis_daily WHERE direction = 'placed'
      GROUP BY call_date, placing_trunk_name ORDER BY 1`.execute(db);
    expect(daily.rows.map((r) => r.line).sort()).toEqual(
      [...attempts].map(([key, n]) => `${key} ${n}`).sort(),
    );
    // Settled days (before the settle window) are in it: the kept rows carry the new name's values.
    expect(new Set(daily.rows.map((r) => r.line.slice(0, 10)))).toContain(START);
  });
});
