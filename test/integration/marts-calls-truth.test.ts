import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMartsOf } from "./marts-build.js";
import { runAt, sandboxConfig, setSandboxClock, truthRecords } from "./pipeline-harness.js";

/**
 * Issue 9, the call side of the marts: a small sandbox world (one account, four days, a few null
 * charges) is loaded with the call streams, `dbt build` runs, and the marts' figures equal what this
 * file computes from the sandbox's truth export on its own (never from the landing tables, never
 * through the loader's parsing): daily cost and ASR per trunk, the Erlangs and peak of the busiest
 * trunk hour, transcriptions and average score per day, and the count of calls missing a charge.
 * The world is loaded and built at noon of its last day, then again (fct_calls incremental) once
 * the day is over and every transcription is ready: the figures are those of the final truth.
 */
const START = "2026-08-01";
const ACCOUNT = "master";
type Json = Record<string, unknown>;

it.override({
  sandboxOptions: {
    seed: 29,
    start: START,
    days: 4,
    accounts: 1,
    callsPerDay: 250,
    // Mid-way through the last day: the second load and build (incremental) see the rest of it.
    now: "2026-08-04T12:00:00Z",
    faults: { rows: { nullCharge: 0.03 } },
  },
});

/** Micro-dollars of a decimal string (money is never compared as a float sum). */
const micros = (value: unknown): number =>
  value === null || value === undefined ? 0 : Math.round(Number(value) * 1e6);

/** Epoch ms of a platform timestamp (UTC; the CDR form has no zone designator). */
const instantMs = (value: unknown): number => {
  const text = String(value).replace(" ", "T");
  return Date.parse(/[Zz]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
};
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** One truth CDR reduced to what the oracles need. */
interface Leg {
  readonly uuid: string;
  readonly startMs: number;
  readonly durationS: number;
  readonly trunk: string | null;
  readonly isRoot: boolean;
  readonly isAnswered: boolean;
  readonly costMicros: number;
  readonly isChargeMissing: boolean;
  readonly sipTrunk: string | null;
}

/** Truth CDRs as legs: the trunk is the placed leg's own, or the trunk a received call was forwarded to. */
function legsOf(cdrs: readonly Json[], trunkNames: ReadonlySet<string>): Leg[] {
  return cdrs.map((cdr) => {
    const sipTrunk = (cdr.sip_trunk as string | null | undefined) ?? null;
    const destination = (cdr.destination as string | null | undefined) ?? null;
    const answered = cdr.disposition === "answered";
    return {
      uuid: String(cdr.uuid ?? cdr.call_id),
      startMs: instantMs(cdr.date),
      durationS: Number(cdr.duration),
      trunk: sipTrunk ?? (destination !== null && trunkNames.has(destination) ? destination : null),
      isRoot: (cdr.parent_uuid ?? cdr.parent_call_id ?? null) === null,
      isAnswered: answered,
      costMicros: micros(cdr.charge) + micros(cdr.forward_fee),
      isChargeMissing: (cdr.charge ?? null) === null && answered && Number(cdr.duration) > 0,
      sipTrunk,
    };
  });
}

/** Per (day, trunk) of placed legs: cost in micro-dollars, answered root calls and root attempts. */
function dailyTrunkFigures(
  legs: readonly Leg[],
): Map<string, { cost: number; answered: number; attempts: number }> {
  const out = new Map<string, { cost: number; answered: number; attempts: number }>();
  for (const leg of legs) {
    if (leg.sipTrunk === null) continue;
    const key = `${utcDay(leg.startMs)} ${leg.sipTrunk}`;
    const row = out.get(key) ?? { cost: 0, answered: 0, attempts: 0 };
    row.cost += leg.costMicros;
    if (leg.isRoot) {
      row.attempts += 1;
      if (leg.isAnswered) row.answered += 1;
    }
    out.set(key, row);
  }
  return out;
}

const HOUR_MS = 3_600_000;

/** Talk seconds of `trunk` inside the hour starting at `hourMs`, legs split at the hour's edges. */
function secondsInHour(legs: readonly Leg[], trunk: string, hourMs: number): number {
  let ms = 0;
  for (const leg of legs) {
    if (leg.trunk !== trunk) continue;
    const end = leg.startMs + leg.durationS * 1000;
    ms += Math.max(0, Math.min(end, hourMs + HOUR_MS) - Math.max(leg.startMs, hourMs));
  }
  return ms / 1000;
}

/**
 * The most legs of `trunk` talking at one instant of the hour: the legs carried in from before it,
 * or the level right after a leg starts inside it (ends sort before starts at the same instant).
 */
function peakInHour(legs: readonly Leg[], trunk: string, hourMs: number): number {
  const talking = legs.filter((l) => l.trunk === trunk && l.durationS > 0);
  const endOf = (l: Leg) => l.startMs + l.durationS * 1000;
  const carriedIn = talking.filter((l) => l.startMs < hourMs && endOf(l) > hourMs).length;
  const events = talking.flatMap((l): [number, number][] => [
    [l.startMs, 1],
    [endOf(l), -1],
  ]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let level = 0;
  let peak = carriedIn;
  for (const [at, delta] of events) {
    level += delta;
    if (delta === 1 && at >= hourMs && at < hourMs + HOUR_MS) peak = Math.max(peak, level);
  }
  return peak;
}

async function rows<T>(warehouse: Warehouse, query: ReturnType<typeof sql<T>>): Promise<T[]> {
  return (await query.execute(warehouse.db)).rows;
}

async function loadAndBuild(sandbox: RunningSandbox, warehouse: Warehouse, databaseUrl: string) {
  const base = sandboxConfig(sandbox, { transcriptionMaxAgeDays: 60 });
  const streams = ["cdrs", "sip_trunks", "numbers", "transcriptions", "recordings"];
  const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, streams })) };
  const run = await runAt(warehouse, config, sandbox, { command: "run" });
  expect(run.streams.filter((s) => s.errors.length > 0)).toEqual([]);
  return buildMartsOf(databaseUrl, streams);
}

describe("call marts against the sandbox's truth", () => {
  it("daily cost and ASR per trunk, busy-hour Erlangs, transcriptions per day, missing charges", {
    timeout: 400_000,
  }, async ({ sandbox, database }) => {
    await loadAndBuild(sandbox, database.warehouse, database.url);
    const [before] = await rows(
      database.warehouse,
      sql<{ legs: number }>`SELECT count(*)::int AS legs FROM analytics_marts.fct_calls`,
    );
    // Every transcription is ready by then (at most 15 min after its call).
    await setSandboxClock(sandbox, "2026-08-05T06:00:00Z");
    const summary = await loadAndBuild(sandbox, database.warehouse, database.url);
    expect(summary).toMatch(/ERROR=0/);
    const warehouse = database.warehouse;

    const range = { from: START, to: "2026-08-05" };
    const cdrs = await truthRecords(sandbox, "cdrs", ACCOUNT, range);
    const trunks = await truthRecords(sandbox, "sip_trunks", ACCOUNT);
    const legs = legsOf(cdrs, new Set(trunks.map((t) => String(t.name))));
    // The incremental build merged the afternoon's legs into the ones built at noon.
    expect(before?.legs).toBeGreaterThan(0);
    expect(before?.legs).toBeLessThan(legs.length);
    const [after] = await rows(
      warehouse,
      sql<{ legs: number }>`SELECT count(*)::int AS legs FROM analytics_marts.fct_calls`,
    );
    expect(after?.legs).toBe(legs.length);

    // has_recording: exactly the calls the recordings list (by call_uuid) holds, one recording per call.
    const recorded = (await truthRecords(sandbox, "recordings", ACCOUNT, range)).map((r) =>
      String(r.call_uuid),
    );
    expect(recorded.length).toBeGreaterThan(0);
    const flagged = await rows(
      warehouse,
      sql<{ call_uuid: string }>`
        SELECT call_uuid FROM analytics_marts.fct_calls WHERE account = ${ACCOUNT} AND has_recording`,
    );
    expect(flagged.map((r) => r.call_uuid).sort()).toEqual(recorded.sort());

    // Daily cost and ASR per trunk.
    const expected = dailyTrunkFigures(legs);
    const mart = await rows(
      warehouse,
      sql<{ day: string; trunk: string; cost: string; answered: number; attempts: number; asr: string }>`
        SELECT call_date::text AS day, placing_trunk_name AS trunk, sum(cost_usd)::text AS cost,
               sum(answered_calls)::int AS answered, sum(root_call_attempts)::int AS attempts,
               (sum(answered_calls)::numeric / sum(root_call_attempts))::text AS asr
        FROM analytics_marts.rpt_call_kpis_daily
        WHERE account = ${ACCOUNT} AND direction = 'placed'
        GROUP BY 1, 2`,
    );
    expect(
      new Map(
        mart.map((r) => [
          `${r.day} ${r.trunk}`,
          { cost: micros(r.cost), answered: r.answered, attempts: r.attempts },
        ]),
      ),
    ).toEqual(expected);
    for (const r of mart) {
      const e = expected.get(`${r.day} ${r.trunk}`)!;
      expect(Number(r.asr)).toBeCloseTo(e.answered / e.attempts, 12);
    }
    expect(expected.size).toBeGreaterThanOrEqual(4);

    // Erlangs and peak of the busiest (trunk, hour) of the truth.
    let busiest = { trunk: "", hourMs: 0, seconds: -1 };
    const hours = new Set(
      legs
        .filter((l) => l.trunk !== null)
        .map((l) => `${l.trunk}|${Math.floor(l.startMs / HOUR_MS) * HOUR_MS}`),
    );
    for (const key of hours) {
      const [trunk, hour] = key.split("|") as [string, string];
      const seconds = secondsInHour(legs, trunk, Number(hour));
      if (seconds > busiest.seconds) busiest = { trunk, hourMs: Number(hour), seconds };
    }
    expect(busiest.seconds).toBeGreaterThan(0);
    const [hourly] = await rows(
      warehouse,
      sql<{ erlangs: string; call_seconds: string; peak: number }>`
        SELECT erlangs::text, call_seconds::text, peak_concurrent_legs AS peak
        FROM analytics_marts.rpt_call_volume_hourly
        WHERE account = ${ACCOUNT} AND trunk_name = ${busiest.trunk}
          AND hour_start_at = ${new Date(busiest.hourMs).toISOString()}::timestamptz`,
    );
    expect(Number(hourly?.call_seconds)).toBe(busiest.seconds);
    expect(Number(hourly?.erlangs)).toBeCloseTo(busiest.seconds / 3600, 12);
    expect(hourly?.peak).toBe(peakInHour(legs, busiest.trunk, busiest.hourMs));

    // Transcriptions and average score per call day.
    const transcriptions = await truthRecords(sandbox, "transcriptions", ACCOUNT, range);
    const callDay = new Map(legs.map((l) => [l.uuid, utcDay(l.startMs)]));
    const perDay = new Map<string, { count: number; scoreSum: number; scored: number }>();
    for (const t of transcriptions) {
      const day = callDay.get(String(t.request_id ?? t.call_uuid))!;
      const row = perDay.get(day) ?? { count: 0, scoreSum: 0, scored: 0 };
      const score = t.transcription_score ?? t.call_score ?? null;
      row.count += 1;
      if (score !== null) {
        row.scoreSum += Number(score);
        row.scored += 1;
      }
      perDay.set(day, row);
    }
    expect(transcriptions.length).toBeGreaterThan(20);
    const sentiment = await rows(
      warehouse,
      sql<{ day: string; transcriptions: number; avg_score: string }>`
        SELECT call_date::text AS day, sum(transcriptions)::int AS transcriptions,
               (sum(score_sum) / sum(scored_calls))::text AS avg_score
        FROM analytics_marts.rpt_sentiment_daily WHERE account = ${ACCOUNT} GROUP BY 1`,
    );
    expect(new Map(sentiment.map((r) => [r.day, r.transcriptions]))).toEqual(
      new Map([...perDay].map(([day, r]) => [day, r.count])),
    );
    for (const r of sentiment) {
      const e = perDay.get(r.day)!;
      expect(Number(r.avg_score)).toBeCloseTo(e.scoreSum / e.scored, 9);
    }

    // Calls missing a charge: counted, and not shown as 0 in the fact: the leg's cost is its forward
    // fee when it has one (the fee is not dropped), else unknown (null).
    const missing = legs.filter((l) => l.isChargeMissing).length;
    expect(missing).toBeGreaterThan(0);
    const [counts] = await rows(
      warehouse,
      sql<{ kpis: number; facts: number; feeOnly: number }>`
        SELECT (SELECT sum(missing_charge_count)::int FROM analytics_marts.rpt_call_kpis_daily WHERE account = ${ACCOUNT}) AS kpis,
               (SELECT count(*)::int FROM analytics_marts.fct_calls WHERE account = ${ACCOUNT} AND is_charge_missing) AS facts,
               (SELECT count(*)::int FROM analytics_marts.fct_calls
                 WHERE account = ${ACCOUNT} AND is_charge_missing AND charge_usd IS NULL
                   AND total_cost_usd IS NOT DISTINCT FROM forward_fee_usd) AS "feeOnly"`,
    );
    expect(counts).toEqual({ kpis: missing, facts: missing, feeOnly: missing });
  });
});
