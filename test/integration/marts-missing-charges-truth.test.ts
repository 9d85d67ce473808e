import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import { pino } from "pino";
import { runDbt } from "../../src/transform/run-dbt.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMartsOf } from "./marts-build.js";
import { runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";

/**
 * Issue 16, missing charges: a sandbox world where the platform drops the charge of some answered,
 * rated calls (the `nullCharge` row fault) is loaded and built, and every cost mart's
 * `missing_charge_count` / `estimated_missing_charge_usd` per day equals what this file computes
 * from the sandbox's truth export on its own: a leg is missing when its charge is null and it is
 * answered, rated and has talk time; its estimate is rate × started minutes. The failed calls the
 * platform bills nothing for (null charge by design) are not missing and cost 0. A twin sandbox of
 * the same seed without the fault serves the charges that were dropped: the estimates equal them.
 * Issue 35: a leg's cost is its known parts, so a missing charge never drops the leg's forward fee;
 * every daily cost mart's cost per day equals the truth's charges + forward fees of that day.
 */
const START = "2026-08-01";
const ACCOUNT = "master";
const WORLD = { seed: 53, start: START, days: 4, accounts: 1, callsPerDay: 200, now: "2026-08-05T06:00:00Z" };
type Json = Record<string, unknown>;

it.override({ sandboxOptions: { ...WORLD, faults: { rows: { nullCharge: 0.05 } } } });

/** Micro-dollars of a decimal string (money is never compared as a float sum). */
const micros = (value: unknown): number =>
  value === null || value === undefined ? 0 : Math.round(Number(value) * 1e6);

/** The UTC day of a platform timestamp (the CDR form has no zone designator). */
const utcDay = (value: unknown): string => {
  const text = String(value).replace(" ", "T");
  return new Date(/[Zz]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`).toISOString().slice(0, 10);
};

const legKey = (cdr: Json): string => `${String(cdr.direction)} ${String(cdr.uuid ?? cdr.call_id)}`;

/** Missing, by the issue's definition, read off the truth record alone. */
const isMissing = (cdr: Json): boolean =>
  (cdr.charge ?? null) === null &&
  cdr.disposition === "answered" &&
  (cdr.per_minute ?? null) !== null &&
  Number(cdr.duration) > 0;

/** Per UTC day: missing legs and the estimate of their charges (micro-dollars). */
function missingByDay(cdrs: readonly Json[]): Map<string, { count: number; micros: number }> {
  const out = new Map<string, { count: number; micros: number }>();
  for (const cdr of cdrs) {
    if (!isMissing(cdr)) continue;
    const day = utcDay(cdr.date);
    const row = out.get(day) ?? { count: 0, micros: 0 };
    row.count += 1;
    row.micros += micros(cdr.per_minute) * Math.ceil(Number(cdr.duration) / 60);
    out.set(day, row);
  }
  return out;
}

async function rows<T>(warehouse: Warehouse, query: ReturnType<typeof sql<T>>): Promise<T[]> {
  return (await query.execute(warehouse.db)).rows;
}

/** Each direction's truth CDRs of the account, tagged with their direction. */
async function truthCdrs(sandbox: RunningSandbox): Promise<Json[]> {
  return (await truthRecords(sandbox, "cdrs", ACCOUNT, { from: START, to: "2026-08-05" })).map((r) => ({
    ...r,
    direction: r.direction ?? "placed",
  }));
}

/** Per UTC day: the known cost (charges + forward fees sent) and the missing legs that carry a fee. */
function costByDay(cdrs: readonly Json[]): Map<string, { cost: number; partial: number }> {
  const out = new Map<string, { cost: number; partial: number }>();
  for (const cdr of cdrs) {
    const day = utcDay(cdr.date);
    const row = out.get(day) ?? { cost: 0, partial: 0 };
    row.cost += micros(cdr.charge) + micros(cdr.forward_fee);
    if (isMissing(cdr) && (cdr.forward_fee ?? null) !== null) row.partial += 1;
    out.set(day, row);
  }
  return out;
}

/** A daily cost mart's missing charges of the account per day (its day column named), days with none left out. */
async function martByDay(
  warehouse: Warehouse,
  mart: string,
  dayColumn: string,
): Promise<Map<string, { count: number; micros: number }>> {
  const found = await rows(
    warehouse,
    sql<{ day: string; count: number; usd: string }>`
      SELECT ${sql.ref(dayColumn)}::text AS day, sum(missing_charge_count)::int AS count,
             sum(estimated_missing_charge_usd)::text AS usd
      FROM ${sql.table(`analytics_marts.${mart}`)} WHERE account = ${ACCOUNT} GROUP BY 1`,
  );
  return new Map(
    found.filter((r) => r.count > 0).map((r) => [r.day, { count: r.count, micros: micros(r.usd) }]),
  );
}

/** How a daily cost mart states its cost per day: its day column, cost and partial-leg sums, row filter. */
interface CostColumns {
  readonly day: string;
  readonly cost: string;
  readonly partial?: string;
  readonly where?: string;
}

/** A daily cost mart's cost and partial-cost legs of the account per day. */
async function martCostByDay(
  warehouse: Warehouse,
  mart: string,
  columns: CostColumns,
): Promise<Map<string, { cost: number; partial: number }>> {
  const found = await rows(
    warehouse,
    sql<{ day: string; usd: string; partial: number }>`
      SELECT ${sql.ref(columns.day)}::text AS day, ${sql.raw(columns.cost)}::text AS usd,
             ${sql.raw(columns.partial ?? "0")}::int AS partial
      FROM ${sql.table(`analytics_marts.${mart}`)}
      WHERE account = ${ACCOUNT} AND ${sql.raw(columns.where ?? "true")} GROUP BY 1`,
  );
  return new Map(found.map((r) => [r.day, { cost: micros(r.usd), partial: r.partial }]));
}

/** The cost of each day of a per-day map, without the partial-leg counts. */
const costOnly = (byDay: ReadonlyMap<string, { cost: number }>): Map<string, number> =>
  new Map([...byDay].map(([day, d]) => [day, d.cost]));

/**
 * Issue 35: every daily cost mart's cost per day is the truth's charges + forward fees sent that
 * day, a missing charge's fee included; the anomaly report is of placed legs only.
 */
async function expectDailyCosts(warehouse: Warehouse, cdrs: readonly Json[]): Promise<void> {
  const costExpected = costByDay(cdrs);
  const placedCost = costByDay(cdrs.filter((c) => c.direction === "placed"));
  const partialDays = [...costExpected.values()].filter((d) => d.partial > 0);
  expect(partialDays.length).toBeGreaterThan(0);
  const kpis = { cost: "sum(cost_usd)", partial: "sum(partial_cost_legs)" };
  const daily = (day: string) => ({ ...kpis, day });
  expect(await martCostByDay(warehouse, "rpt_call_kpis_daily", daily("call_date"))).toEqual(costExpected);
  expect(await martCostByDay(warehouse, "rpt_call_kpis_daily_local", daily("call_local_date"))).toEqual(
    costExpected,
  );
  expect(
    await martCostByDay(warehouse, "rpt_call_cost_daily", {
      ...daily("call_date"),
      cost: "sum(total_cost_usd)",
    }),
  ).toEqual(costExpected);
  const usageCost = {
    day: "usage_date",
    cost: "sum(usage_usd)",
    where: "product IN ('calls', 'forward_fees')",
  };
  expect(costOnly(await martCostByDay(warehouse, "rpt_usage_daily", usageCost))).toEqual(
    costOnly(costExpected),
  );
  const anomalies = await martCostByDay(warehouse, "rpt_destination_cost_anomalies", {
    day: "call_date",
    cost: "sum(cost_usd)",
  });
  expect(costOnly(anomalies)).toEqual(costOnly(placedCost));
  const total = [...costExpected.values()].reduce((sum, d) => sum + d.cost, 0);
  const keptFees = cdrs.filter(isMissing).reduce((sum, c) => sum + micros(c.forward_fee), 0);
  console.info(
    `call cost: ${(total / 1e6).toFixed(6)} USD in every cost mart and rpt_usage_daily, of which ` +
      `${(keptFees / 1e6).toFixed(6)} USD are forward fees of legs missing their charge (dropped before issue 35)`,
  );
}

/**
 * The dbt test that every cost mart reconciles with rpt_usage_daily to the cent passes on the
 * built marts and fails once one day of one cost mart is a cent off.
 */
async function expectReconciliationCatchesACent(databaseUrl: string, warehouse: Warehouse): Promise<void> {
  const workDir = await mkdtemp(path.join(tmpdir(), "marts-reconcile-dbt-"));
  const reconcile = () =>
    runDbt({
      databaseUrl,
      log: pino({ level: "silent" }),
      workDir,
      args: ["test", "--select", "assert_cost_marts_reconcile_to_usage"],
    });
  try {
    const passing = await reconcile();
    expect(passing.ok, passing.tail.join("\n")).toBe(true);
    await sql`UPDATE analytics_marts.rpt_call_cost_daily SET total_cost_usd = total_cost_usd + 0.01
              WHERE ctid = (SELECT ctid FROM analytics_marts.rpt_call_cost_daily ORDER BY call_date, direction LIMIT 1)`.execute(
      warehouse.db,
    );
    const failing = await reconcile();
    expect(failing.ok).toBe(false);
    expect(failing.tail.join("\n")).toMatch(/assert_cost_marts_reconcile_to_usage/);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

describe("missing charges against the sandbox's truth", () => {
  it("every cost mart counts and estimates the missing charges of each day; failed calls with a null charge are not missing", {
    timeout: 400_000,
  }, async ({ sandbox, database, launchSandbox }) => {
    const base = sandboxConfig(sandbox);
    const streams = ["cdrs"];
    const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, streams })) };
    const run = await runAt(database.warehouse, config, sandbox, { command: "run" });
    expect(run.streams.filter((s) => s.errors.length > 0)).toEqual([]);
    await buildMartsOf(database.url, streams);
    const warehouse = database.warehouse;

    const cdrs = await truthCdrs(sandbox);
    const expected = missingByDay(cdrs);
    const missing = cdrs.filter(isMissing);
    const nullNotMissing = cdrs.filter((c) => (c.charge ?? null) === null && !isMissing(c));
    expect(missing.length).toBeGreaterThan(10);
    expect(nullNotMissing.length).toBeGreaterThan(10);
    expect(nullNotMissing.every((c) => c.disposition !== "answered" || Number(c.duration) === 0)).toBe(true);

    // The sandbox's own record of the charges it dropped names the same legs.
    const range = { from: START, to: "2026-08-05" };
    const dropped = await truthRecords(sandbox, "cdrs", ACCOUNT, range, "/malformed");
    expect(dropped.every((m) => m.kind === "null_charge")).toBe(true);
    expect(dropped.map((m) => `${String(m.direction)} ${String((m.raw as Json).uuid)}`).sort()).toEqual(
      missing.map(legKey).sort(),
    );

    // The fact: exactly those legs are missing; their cost is their forward fee (flagged partial),
    // null without one; a failed leg's null charge costs 0 (plus its fee).
    const facts = await rows(
      warehouse,
      sql<{ leg: string; missing: boolean; partial: boolean; estimate: string; total: string | null }>`
        SELECT direction || ' ' || call_uuid AS leg, is_charge_missing AS missing, is_cost_partial AS partial,
               estimated_missing_charge_usd::text AS estimate, total_cost_usd::text AS total
        FROM analytics_marts.fct_calls WHERE account = ${ACCOUNT} AND charge_usd IS NULL`,
    );
    const factByLeg = new Map(facts.map((f) => [f.leg, f]));
    expect(
      facts
        .filter((f) => f.missing)
        .map((f) => f.leg)
        .sort(),
    ).toEqual(missing.map(legKey).sort());
    const withFee = missing.filter((c) => (c.forward_fee ?? null) !== null);
    expect(withFee.length).toBeGreaterThan(0);
    expect(withFee.length).toBeLessThan(missing.length);
    for (const leg of missing) {
      const fact = factByLeg.get(legKey(leg));
      const fee = leg.forward_fee ?? null;
      expect(fact?.partial).toBe(fee !== null);
      if (fee === null) expect(fact?.total).toBeNull();
      else expect(micros(fact?.total)).toBe(micros(fee));
    }
    for (const leg of nullNotMissing) {
      const fact = factByLeg.get(legKey(leg));
      expect(fact?.missing).toBe(false);
      expect(micros(fact?.estimate)).toBe(0);
      expect(micros(fact?.total) - micros(leg.forward_fee)).toBe(0);
    }

    // Per day, in every daily cost mart.
    const marts = {
      rpt_call_kpis_daily: await martByDay(warehouse, "rpt_call_kpis_daily", "call_date"),
      // The account's time zone is the default UTC: its local days are the UTC days.
      rpt_call_kpis_daily_local: await martByDay(warehouse, "rpt_call_kpis_daily_local", "call_local_date"),
      rpt_call_cost_daily: await martByDay(warehouse, "rpt_call_cost_daily", "call_date"),
      rpt_usage_daily: await martByDay(warehouse, "rpt_usage_daily", "usage_date"),
      rpt_destination_cost_anomalies: await martByDay(
        warehouse,
        "rpt_destination_cost_anomalies",
        "call_date",
      ),
    };
    const placedExpected = missingByDay(cdrs.filter((c) => c.direction === "placed"));
    expect(expected.size).toBe(4);
    expect(marts.rpt_call_kpis_daily).toEqual(expected);
    expect(marts.rpt_call_kpis_daily_local).toEqual(expected);
    expect(marts.rpt_call_cost_daily).toEqual(expected);
    expect(marts.rpt_usage_daily).toEqual(expected);
    expect(marts.rpt_destination_cost_anomalies).toEqual(placedExpected);

    await expectDailyCosts(warehouse, cdrs);
    await expectReconciliationCatchesACent(database.url, warehouse);

    // Known cost never includes a missing charge: the day's calls usage is the sum of the charges sent.
    const usage = await rows(
      warehouse,
      sql<{ day: string; usd: string }>`
        SELECT usage_date::text AS day, usage_usd::text AS usd FROM analytics_marts.rpt_usage_daily
        WHERE account = ${ACCOUNT} AND product = 'calls'`,
    );
    const charged = new Map<string, number>();
    for (const c of cdrs) charged.set(utcDay(c.date), (charged.get(utcDay(c.date)) ?? 0) + micros(c.charge));
    expect(new Map(usage.map((u) => [u.day, micros(u.usd)]))).toEqual(charged);

    // The estimate is what the platform would have charged: a twin without the fault serves it.
    const twin = await launchSandbox(WORLD);
    const real = new Map((await truthCdrs(twin)).map((c) => [legKey(c), micros(c.charge)]));
    const droppedMicros = missing.reduce((sum, c) => sum + (real.get(legKey(c)) ?? Number.NaN), 0);
    const estimatedMicros = [...expected.values()].reduce((sum, d) => sum + d.micros, 0);
    expect(droppedMicros).toBe(estimatedMicros);
    console.info(
      `missing charges: ${missing.length} legs, estimated ${(estimatedMicros / 1e6).toFixed(6)} USD ` +
        `(dropped ${(droppedMicros / 1e6).toFixed(6)} USD); null-charge legs not missing: ${nullNotMissing.length}`,
    );
  });
});
