import { sql } from "kysely";
import { recordAccountTimeZones } from "../../src/warehouse/admin/account-time-zones.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMarts, loadMartStreamsAt } from "./marts-build.js";

/**
 * Issue 9, incremental marts: a nightly build re-builds only its settle window, and what it leaves
 * must be exactly what a `--full-refresh` builds from the same landing data. The world is loaded
 * and fully built mid-way through, loaded again three days later (new days, and the unsettled days'
 * late CDRs, charges, statuses and clicks), built incrementally; every incremental mart is read,
 * then rebuilt with `--full-refresh` and read again. The oracle is the full refresh: the same
 * models without their incremental branches. Builds go the way `transform` builds (write–audit–
 * publish): in the build schema, then published; the marts are read where BI reads them. The first
 * nightly build starts each incremental mart as a copy of the published one (the full refresh kept
 * none); a second one, after another load, continues from the table the first nightly's
 * publication replaced and kept (the full refresh's, two loads behind) and must catch up.
 */
const INCREMENTAL_MARTS: Readonly<Record<string, string>> = {
  fct_calls: "account, direction, call_uuid",
  rpt_call_kpis_daily: "call_date, account, direction, destination_country, placing_trunk_name",
  rpt_call_volume_hourly: "hour_start_at, account, trunk_name",
  rpt_call_cost_daily: "call_date, account, direction, destination",
  audit_call_rates: "account, direction, call_uuid",
  fct_campaign_messages: "account, message_id",
  fct_link_clicks: "account, click_date, click_ordinal",
  rpt_campaign_daily: "activity_date, account, campaign",
  rpt_campaign_totals: "account, campaign",
  rpt_usage_daily: "usage_date, account, product",
  rpt_call_kpis_daily_local: "call_local_date, account, direction, destination_country, placing_trunk_name",
  rpt_messages_daily_local:
    "submitted_local_date, account, country_iso2, carrier, status, direction, kind, channel",
  rpt_campaign_daily_local: "activity_local_date, account, campaign",
  rpt_usage_daily_local: "usage_local_date, account, product",
  rpt_account_concurrency_daily: "call_date, account",
  fct_messages: "account, message_id",
  rpt_messages_daily: "submitted_date, account, country_iso2, carrier, status, direction, kind, channel",
  rpt_destination_cost_anomalies: "call_date, account, destination_country",
  fct_ledger_transactions: "account, ledger_account, transaction_id",
};

/** The incremental marts keyed on grain_key (their grain can hold NULL: macro grain_key). */
const GRAIN_KEYED = [
  "rpt_call_kpis_daily",
  "rpt_call_volume_hourly",
  "rpt_call_cost_daily",
  "rpt_call_kpis_daily_local",
  "rpt_messages_daily_local",
  "rpt_messages_daily",
  "rpt_destination_cost_anomalies",
];

it.override({
  sandboxOptions: {
    seed: 41,
    start: "2026-08-01",
    days: 9,
    accounts: 1,
    callsPerDay: 150,
    now: "2026-08-06T12:00:00Z",
    // Billed legs without a charge: the missing-charge flags and costs have rows to re-build too.
    faults: { rows: { nullCharge: 0.03 } },
  },
});

async function build(warehouse: Warehouse, args: readonly string[]): Promise<void> {
  const publication = await buildMarts(warehouse, args);
  expect(publication?.marts).toEqual(expect.arrayContaining(Object.keys(INCREMENTAL_MARTS)));
}

/** Every row of every incremental mart as text, in key order, without the build stamp. */
async function readMarts(warehouse: Warehouse): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [mart, key] of Object.entries(INCREMENTAL_MARTS)) {
    const { rows } = await sql<{ line: string }>`
      SELECT (to_jsonb(m) - 'built_at')::text AS line
      FROM ${sql.table(`analytics_marts.${mart}`)} AS m
      ORDER BY ${sql.raw(key)}`.execute(warehouse.db);
    out[mart] = rows.map((r) => r.line);
  }
  return out;
}

async function oidOf(warehouse: Warehouse, table: string): Promise<number | null> {
  const { rows } = await sql<{ oid: string | null }>`SELECT to_regclass(${table})::oid::int8 AS oid`.execute(
    warehouse.db,
  );
  return rows[0]?.oid == null ? null : Number(rows[0].oid);
}

/** How many builds wrote the published fct_calls' legs (distinct build stamps). */
async function buildsIn(warehouse: Warehouse): Promise<number> {
  const { rows } = await sql<{ builds: number }>`
    SELECT count(DISTINCT built_at)::int AS builds FROM analytics_marts.fct_calls`.execute(warehouse.db);
  return rows[0]!.builds;
}

describe("incremental marts", () => {
  it("two nightly builds (copied, then continued from the kept marts) equal a --full-refresh of the same data", {
    timeout: 600_000,
  }, async ({ sandbox, database }) => {
    await loadMartStreamsAt(sandbox, database.warehouse, "2026-08-06T12:00:00Z");
    // West of UTC: a leg's local day is the UTC day or the one before (the local report's window).
    await recordAccountTimeZones(
      database.warehouse.db,
      sandbox.world.accounts.map((a) => ({ account: a.name, timeZone: "America/Los_Angeles" })),
    );
    await build(database.warehouse, ["--full-refresh"]);
    const before = await readMarts(database.warehouse);

    const fullRefreshTable = await oidOf(database.warehouse, "analytics_marts.fct_calls");

    await loadMartStreamsAt(sandbox, database.warehouse, "2026-08-08T06:00:00Z");
    await build(database.warehouse, []);
    // The nightly build was incremental (it started from a copy of the published marts, not from
    // nothing): the legs before its settle window are still those the first build wrote...
    expect(await buildsIn(database.warehouse)).toBe(2);
    // ...and its publication kept the full refresh's table, out of BI's schema.
    expect(await oidOf(database.warehouse, "analytics_marts__previous.fct_calls")).toBe(fullRefreshTable);

    await loadMartStreamsAt(sandbox, database.warehouse, "2026-08-09T18:00:00Z");
    await build(database.warehouse, []);
    const incremental = await readMarts(database.warehouse);
    // The second nightly continued from the kept table (the same relation, now published again):
    // the full refresh's legs and its own, none of the first nightly's (the kept table never had them).
    expect(await oidOf(database.warehouse, "analytics_marts.fct_calls")).toBe(fullRefreshTable);
    expect(await buildsIn(database.warehouse)).toBe(2);
    await build(database.warehouse, ["--full-refresh"]);
    const full = await readMarts(database.warehouse);

    for (const mart of Object.keys(INCREMENTAL_MARTS)) {
      // The second load changed every mart (else the comparison would prove nothing about it)...
      if (mart !== "audit_call_rates") expect(incremental[mart], mart).not.toEqual(before[mart]);
      // ...and the nightly build left exactly what the full refresh builds.
      expect(incremental[mart], mart).toEqual(full[mart]);
    }
    expect(full.fct_calls?.length).toBeGreaterThan(1000);
    expect(full.fct_link_clicks?.length).toBeGreaterThan(0);
    expect(full.fct_campaign_messages?.length).toBeGreaterThan(0);

    // The nightly's read of the landing CDRs (fct_calls' incremental filter on called_at, through
    // the staging and intermediate views) touches only the months from its window on: an earlier
    // month's partition of platform.cdrs is pruned.
    await sql`SELECT etl.ensure_month_partition('platform.cdrs'::regclass, '2026-07-01')`.execute(
      database.warehouse.db,
    );
    const plan = await sql<{ "QUERY PLAN": unknown }>`
      EXPLAIN (FORMAT JSON) SELECT * FROM analytics_intermediate.int_calls_costed
      WHERE called_at IS NULL OR called_at >= '2026-08-04'::timestamp AT TIME ZONE 'UTC'`.execute(
      database.warehouse.db,
    );
    const scanned = [
      ...JSON.stringify(plan.rows[0]!["QUERY PLAN"]).matchAll(/"Relation Name":"([^"]+)"/g),
    ].map((m) => m[1]);
    expect(scanned).toContain("cdrs_p2026_08");
    expect(scanned).not.toContain("cdrs_p2026_07");

    // Upgrade to the numbering plan: a fct_calls built before it (no destination_country_iso2,
    // every +1 leg one "NANP" country) is re-processed whole by the next nightly build, settled
    // days included, and ends as the full refresh built it. The published table is made old, and
    // the one its publication kept if any (where the next build would continue from).
    for (const schema of ["analytics_marts", "analytics_marts__previous"]) {
      if ((await oidOf(database.warehouse, `${schema}.fct_calls`)) === null) continue;
      await sql`UPDATE ${sql.table(`${schema}.fct_calls`)}
                SET destination_country = 'United States / Canada (NANP)'
                WHERE destination_calling_code = '1'`.execute(database.warehouse.db);
      await sql`ALTER TABLE ${sql.table(`${schema}.fct_calls`)} DROP COLUMN destination_country_iso2`.execute(
        database.warehouse.db,
      );
    }
    // Upgrade to grain_key: the reports whose grain can hold NULL, as published before they had
    // it (no grain_key, no primary key), re-build every day once (settle_window_start's requires),
    // so the settled days get their key too, and their primary key is then on grain_key.
    for (const schema of ["analytics_marts", "analytics_marts__previous"]) {
      for (const mart of GRAIN_KEYED) {
        if ((await oidOf(database.warehouse, `${schema}.${mart}`)) === null) continue;
        await sql`ALTER TABLE ${sql.table(`${schema}.${mart}`)} DROP COLUMN grain_key`.execute(
          database.warehouse.db,
        );
      }
    }
    await build(database.warehouse, []);
    const upgraded = await readMarts(database.warehouse);
    expect(upgraded.fct_calls).toEqual(full.fct_calls);
    for (const mart of GRAIN_KEYED) expect(upgraded[mart], mart).toEqual(full[mart]);
    console.info(
      `upgrade to grain_key, rows equal to the full refresh: ${GRAIN_KEYED.map((m) => `${m} ${upgraded[m]?.length}`).join(", ")}`,
    );
    const { rows: keys } = await sql<{ mart: string }>`
      SELECT c.conrelid::regclass::text AS mart FROM pg_catalog.pg_constraint c
      WHERE c.contype = 'p' AND c.connamespace = 'analytics_marts'::regnamespace
        AND c.conkey = ARRAY[(SELECT attnum FROM pg_catalog.pg_attribute
                              WHERE attrelid = c.conrelid AND attname = 'grain_key')]
      ORDER BY 1`.execute(database.warehouse.db);
    const keyed = GRAIN_KEYED.map((m) => `analytics_marts.${m}`);
    expect(
      keys
        .map((k) => k.mart)
        .filter((m) => keyed.includes(m))
        .sort(),
    ).toEqual(keyed.sort());
  });
});
