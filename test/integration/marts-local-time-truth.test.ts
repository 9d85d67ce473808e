import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import { DateTime } from "luxon";
import { pino } from "pino";
import { onTestFinished } from "vitest";
import type { EtlConfig } from "../../src/config/config.js";
import { accountTimeZones } from "../../src/core/account-time-zone.js";
import type { Clock } from "../../src/core/ports.js";
import { parseSemanticLayer, queryMetrics, semanticLayerFolder } from "../../src/transform/query-metrics.js";
import { runDbt, WITHOUT_UNIT_TESTS } from "../../src/transform/run-dbt.js";
import { recordAccountTimeZones } from "../../src/warehouse/admin/account-time-zones.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { sweepByDay } from "../helpers/concurrency-truth.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";

/**
 * Issue 16 items 4 and 5: three accounts in zones on either side of UTC (Los Angeles, Kolkata,
 * Tokyo) are loaded and built; the account-local call days (fct_calls, rpt_call_kpis_daily_local), the
 * account-local campaign message days, and each account's peak concurrent legs and Erlangs per UTC
 * day (rpt_account_concurrency_daily) equal what this file computes from the sandbox's truth export
 * on its own: local dates with luxon, the peak by a sweep over the truth's legs. Summing the
 * trunks' peaks (rpt_call_volume_hourly) overstates the account's peak: the ratio is printed.
 * MetricFlow answers the peak per day and per week (the largest daily peak) and the Erlangs alike.
 * Issue 35 item 5: the account-local daily reports of messages, campaigns, sentiment and usage
 * equal, per account and local day, the truth's messages, campaign messages and clicks,
 * transcriptions and charges put on local days by this file; every local report's
 * is_partial_local_day is true exactly on the local days that stick out of the UTC range the run
 * read (the config's start day to the run's instant, on the sandbox's clock): the first and last
 * local day of each account. The world has traffic up to the run's instant, so those days have rows.
 * Then one account's zone changes and an incremental build moves all of its rows (those outside
 * the settle window too), and none of the other account's old rows.
 */
const START = "2026-08-01";
const DAYS = 7;
/** The streams loaded, and the landing tables the marts are built from. */
const STREAMS = ["cdrs", "sip_trunks", "messages", "short_link_metrics", "transcriptions"];
/** What the run loads: the streams, and numbers, which transcriptions needs (not built from here). */
const LOADED = [...STREAMS, "numbers"];
/** The local daily reports (and the ranges they are flagged by) whose build time is reported. */
const LOCAL_MODELS = /_daily_local$|^int_stream_ranges_loaded$/;
/** Their UTC twins, timed beside them. */
const UTC_TWINS = /^rpt_(call_kpis|messages|campaign|sentiment|usage)_daily$/;
type Json = Record<string, unknown>;

it.override({
  sandboxOptions: {
    seed: 41,
    start: START,
    days: DAYS,
    accounts: 3,
    callsPerDay: 300,
    lateShare: 0,
    now: "2026-08-08T00:00:00Z",
  },
});

/** Epoch ms of a platform timestamp (UTC; the CDR form has no zone designator). */
const instantMs = (value: unknown): number => {
  const text = String(value).replace(" ", "T");
  return Date.parse(/[Zz]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
};
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const localDay = (ms: number, zone: string): string => DateTime.fromMillis(ms, { zone }).toISODate()!;

/** Micro-dollars of a decimal string (money is never compared as a float sum). */
const micros = (value: unknown): number =>
  value === null || value === undefined ? 0 : Math.round(Number(value) * 1e6);

/** One truth CDR as the oracles need it. */
interface Leg {
  readonly uuid: string;
  readonly chargeMicros: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly isRoot: boolean;
  readonly isAnswered: boolean;
  readonly trunk: string;
}

function legsOf(cdrs: readonly Json[], trunkNames: ReadonlySet<string>): Leg[] {
  return cdrs.map((cdr) => {
    const startMs = instantMs(cdr.date);
    const sipTrunk = (cdr.sip_trunk as string | null | undefined) ?? null;
    const destination = (cdr.destination as string | null | undefined) ?? null;
    return {
      uuid: String(cdr.uuid ?? cdr.call_id),
      chargeMicros: micros(cdr.charge),
      startMs,
      endMs: startMs + Number(cdr.duration) * 1000,
      isRoot: (cdr.parent_uuid ?? cdr.parent_call_id ?? null) === null,
      isAnswered: cdr.disposition === "answered",
      trunk: sipTrunk ?? (destination !== null && trunkNames.has(destination) ? destination : "(none)"), // the key of a NULL trunk_name (no trunk)
    };
  });
}

async function rows<T>(warehouse: Warehouse, query: ReturnType<typeof sql<T>>): Promise<T[]> {
  return (await query.execute(warehouse.db)).rows;
}

/** Seconds dbt spent on each model matching LOCAL_MODELS, on their data tests, their UTC twins, and the whole build. */
interface BuildTimes {
  readonly local: Map<string, number>;
  readonly localTestSeconds: number;
  readonly twinSeconds: number;
  readonly totalSeconds: number;
}

/**
 * `dbt build` of the models reading the landing tables of STREAMS, as buildMartsOf (marts-build.ts)
 * runs it, keeping dbt's run_results long enough to read how long each local model took.
 */
async function build(warehouse: Warehouse, databaseUrl: string, config: EtlConfig): Promise<BuildTimes> {
  await recordAccountTimeZones(warehouse.db, accountTimeZones(config.accounts));
  const workDir = await mkdtemp(path.join(tmpdir(), "marts-local-dbt-"));
  try {
    const select = STREAMS.map((stream) => `@source:platform.${stream}`);
    const dbt = await runDbt({
      databaseUrl,
      log: pino({ level: "silent" }),
      workDir,
      args: ["build", "--select", ...select, "--indirect-selection", "cautious", ...WITHOUT_UNIT_TESTS],
    });
    expect(dbt.ok, dbt.tail.join("\n")).toBe(true);
    const results = JSON.parse(await readFile(path.join(dbt.targetPath, "run_results.json"), "utf8")) as {
      elapsed_time: number;
      results: { unique_id: string; execution_time: number }[];
    };
    const local = new Map<string, number>();
    let localTestSeconds = 0;
    let twinSeconds = 0;
    for (const r of results.results) {
      const name = r.unique_id.split(".").at(-1)!;
      if (r.unique_id.startsWith("model.") && LOCAL_MODELS.test(name)) local.set(name, r.execution_time);
      if (r.unique_id.startsWith("model.") && UTC_TWINS.test(name)) twinSeconds += r.execution_time;
      if (r.unique_id.startsWith("test.") && /_daily_local|int_stream_ranges_loaded/.test(r.unique_id)) {
        localTestSeconds += r.execution_time;
      }
    }
    return { local, localTestSeconds, twinSeconds, totalSeconds: results.elapsed_time };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The sandbox's clock, ticking from its instant: the run reads at the platform's "now". */
function sandboxTime(sandbox: RunningSandbox): Clock {
  const base = sandbox.runtime.clock.now();
  const startedAt = Date.now();
  return { now: () => base + (Date.now() - startedAt) };
}

/** Adds `value` to the counters of `key` (several at once). */
function tally(into: Map<string, number[]>, key: string, ...values: number[]): void {
  const row = into.get(key) ?? values.map(() => 0);
  values.forEach((v, i) => {
    row[i]! += v;
  });
  into.set(key, row);
}

function zonedConfig(sandbox: RunningSandbox, zones: readonly string[]): EtlConfig {
  const base = sandboxConfig(sandbox);
  return {
    ...base,
    transcriptionMaxAgeDays: 30,
    accounts: base.accounts.map((a, i) => ({
      ...a,
      streams: LOADED,
      timeZone: zones[i]!,
    })),
  };
}

/** Per local day: legs, root calls, answered root calls, from the truth. */
function localDayTotals(legs: readonly Leg[], zone: string): Map<string, [number, number, number]> {
  const out = new Map<string, [number, number, number]>();
  for (const l of legs) {
    const day = localDay(l.startMs, zone);
    const row = out.get(day) ?? [0, 0, 0];
    row[0] += 1;
    if (l.isRoot) row[1] += 1;
    if (l.isRoot && l.isAnswered) row[2] += 1;
    out.set(day, row);
  }
  return out;
}

/** The local report's totals per local day of `account` (and the zones its rows name). */
function martLocalDayTotals(warehouse: Warehouse, account: string) {
  return rows(
    warehouse,
    sql<{ day: string; zone: string; legs: number; roots: number; answered: number; partial: boolean }>`
      SELECT call_local_date::text AS day, min(time_zone) AS zone, sum(leg_attempts)::int AS legs,
             sum(root_call_attempts)::int AS roots, sum(answered_calls)::int AS answered,
             bool_and(is_partial_local_day) AS partial
      FROM analytics_marts.rpt_call_kpis_daily_local WHERE account = ${account} GROUP BY 1`,
  );
}

/** The UTC range a run read, on the sandbox's clock: the local days sticking out of it are partial. */
interface ReadRange {
  readonly fromMs: number;
  readonly untilMs: number;
}

/** Whether local day `day` in `zone` starts before the read range or ends after it. */
function isPartialDay(day: string, zone: string, read: ReadRange): boolean {
  const start = DateTime.fromISO(day, { zone });
  return start.toMillis() < read.fromMs || start.plus({ days: 1 }).toMillis() > read.untilMs;
}

/** One account's truth records, as the oracles read them. */
interface AccountTruth {
  readonly legs: Leg[];
  /** Campaign messages: outbound with a tag. */
  readonly messages: Json[];
  readonly allMessages: Json[];
  readonly clicks: Json[];
  readonly transcriptions: Json[];
}

/** A local report's row per local day (and product): its flags and figures. */
interface LocalRow {
  readonly day: string;
  readonly flags: (boolean | null)[];
  readonly figures: number[];
}

/** A local report's rows of one account: local day (and product) → figures, and its flags. */
async function localRows(warehouse: Warehouse, query: ReturnType<typeof sql<LocalRow>>) {
  const found = await rows(warehouse, query);
  return {
    figures: new Map(found.map((r) => [r.day, r.figures.map(Number)])),
    flags: new Map(found.map((r) => [r.day, r.flags])),
  };
}

/**
 * The local daily reports of messages, campaigns, sentiment and usage of one account against its
 * truth put on local days here (luxon): figures per local day, and on every row
 * is_partial_local_day = the day sticks out of `read`. Returns how many local days are flagged.
 */
async function checkLocalReports(
  warehouse: Warehouse,
  account: string,
  zone: string,
  t: AccountTruth,
  read: ReadRange,
): Promise<string> {
  const day = (value: unknown) => localDay(instantMs(value), zone);
  const expectFlags = (flags: Map<string, (boolean | null)[]>, report: string) => {
    for (const [key, found] of flags) {
      expect(found, `${report} ${account} ${key}`).toEqual([isPartialDay(key.slice(0, 10), zone, read)]);
    }
  };
  // Messages, both directions: messages, delivered, cost (charge + carrier fees) in micro-dollars.
  const messages = new Map<string, number[]>();
  for (const m of t.allMessages) {
    tally(
      messages,
      day(m.submitted_at),
      1,
      m.status === "delivered" ? 1 : 0,
      micros(m.charge) + micros(m.carrier_fees),
    );
  }
  const messageMart = await localRows(
    warehouse,
    sql<LocalRow>`SELECT submitted_local_date::text AS day, array_agg(DISTINCT is_partial_local_day) AS flags,
               array[sum(messages), sum(delivered_messages), round(sum(cost_usd) * 1000000)]::float8[] AS figures
        FROM analytics_marts.rpt_messages_daily_local WHERE account = ${account} GROUP BY 1`,
  );
  expect(messageMart.figures).toEqual(messages);
  expectFlags(messageMart.flags, "rpt_messages_daily_local");

  // Campaigns: campaign messages by their local submission day, clicks by their local click day.
  const campaigns = new Map<string, number[]>();
  for (const m of t.messages) tally(campaigns, day(m.submitted_at), 1, 0);
  for (const c of t.clicks) tally(campaigns, day(c.created_at), 0, 1);
  const campaignMart = await localRows(
    warehouse,
    sql<LocalRow>`SELECT activity_local_date::text AS day, array_agg(DISTINCT is_partial_local_day) AS flags,
               array[sum(messages_sent), sum(clicks)]::float8[] AS figures
        FROM analytics_marts.rpt_campaign_daily_local WHERE account = ${account} GROUP BY 1`,
  );
  expect(campaignMart.figures).toEqual(campaigns);
  expectFlags(campaignMart.flags, "rpt_campaign_daily_local");

  // Sentiment and usage: a transcription is on its call's local day (the call's first leg).
  const callStart = new Map<string, number>();
  for (const l of t.legs) callStart.set(l.uuid, Math.min(callStart.get(l.uuid) ?? l.startMs, l.startMs));
  const sentiment = new Map<string, number[]>();
  const usage = new Map<string, number[]>();
  for (const tr of t.transcriptions) {
    const started = callStart.get(String(tr.call_uuid ?? tr.request_id));
    const when = started === undefined ? day(tr.call_date ?? tr.transcription_date) : localDay(started, zone);
    const score = tr.transcription_score ?? tr.call_score ?? null;
    tally(sentiment, when, 1, score === null ? 0 : 1, score === null ? 0 : Math.round(Number(score) * 10));
    tally(usage, `${when} transcriptions`, 1, micros(tr.charge));
  }
  expect(t.transcriptions.length).toBeGreaterThan(20);
  const sentimentMart = await localRows(
    warehouse,
    sql<LocalRow>`SELECT call_local_date::text AS day, array_agg(DISTINCT is_partial_local_day) AS flags,
               array[sum(transcriptions), sum(scored_calls), round(sum(score_sum) * 10)]::float8[] AS figures
        FROM analytics_marts.rpt_sentiment_daily_local WHERE account = ${account} GROUP BY 1`,
  );
  expect(sentimentMart.figures).toEqual(sentiment);
  expectFlags(sentimentMart.flags, "rpt_sentiment_daily_local");

  // Usage per local day and product: items and USD (micro-dollars) of calls, messages, transcriptions.
  for (const l of t.legs) tally(usage, `${localDay(l.startMs, zone)} calls`, 1, l.chargeMicros);
  for (const m of t.allMessages)
    tally(usage, `${day(m.submitted_at)} messages`, 1, micros(m.charge) + micros(m.carrier_fees));
  const usageMart = await localRows(
    warehouse,
    sql<LocalRow>`SELECT usage_local_date::text || ' ' || product AS day, array_agg(is_partial_local_day) AS flags,
               array[sum(usage_items), round(coalesce(sum(usage_usd), 0) * 1000000)]::float8[] AS figures
        FROM analytics_marts.rpt_usage_daily_local
        WHERE account = ${account} AND product IN ('calls', 'messages', 'transcriptions') GROUP BY 1`,
  );
  expect(usageMart.figures).toEqual(usage);
  expectFlags(usageMart.flags, "rpt_usage_daily_local");
  const flagged = [...messageMart.flags].filter(([, f]) => f[0] === true).map(([d]) => d);
  return `${account} (${zone}): local reports equal the truth on ${messageMart.figures.size} message days, ${campaignMart.figures.size} campaign days, ${sentimentMart.figures.size} sentiment days, ${usageMart.figures.size} usage day × products; partial message days ${flagged.sort().join(", ")}`;
}

describe("local time and account concurrency against the sandbox's truth", () => {
  it("local call days, local message, campaign, sentiment and usage days with their partial days, account peak and Erlangs per day; a zone change re-processes its account", {
    timeout: 900_000,
  }, async ({ sandbox, database }) => {
    const zones = ["America/Los_Angeles", "Asia/Kolkata", "Asia/Tokyo"] as const;
    const config = zonedConfig(sandbox, zones);
    expect(config.accounts).toHaveLength(3);
    // The run reads on the sandbox's clock: from the config's first day to its instant.
    const clock = sandboxTime(sandbox);
    const read = { fromMs: Date.parse(`${config.startDate}T00:00:00Z`), untilMs: clock.now() };
    const run = await runAt(database.warehouse, config, sandbox, { command: "run" }, { clock });
    expect(run.streams.filter((s) => s.errors.length > 0)).toEqual([]);
    const built = await build(database.warehouse, database.url, config);
    const warehouse = database.warehouse;
    const range = { from: START, to: "2026-08-08" };

    const truth = new Map<string, AccountTruth>();
    for (const account of config.accounts) {
      const cdrs = await truthRecords(sandbox, "cdrs", account.name, range);
      const trunks = await truthRecords(sandbox, "sip_trunks", account.name);
      const allMessages = await truthRecords(sandbox, "messages", account.name, range);
      truth.set(account.name, {
        legs: legsOf(cdrs, new Set(trunks.map((t) => String(t.name)))),
        messages: allMessages.filter(
          (m) => m.direction === "outbound" && m.tag !== null && m.tag !== undefined,
        ),
        allMessages,
        clicks: await truthRecords(sandbox, "short_link_metrics", account.name, range),
        transcriptions: await truthRecords(sandbox, "transcriptions", account.name, range),
      });
    }

    const figures: string[] = [];
    const sweeps = new Map<string, Map<string, { peak: number; talkSeconds: number }>>();
    for (const [index, account] of config.accounts.entries()) {
      const zone = zones[index]!;
      const { legs, messages } = truth.get(account.name)!;
      expect(legs.length).toBeGreaterThan(DAYS * 100);

      // Local-day call totals: the report against luxon's local dates of the truth's legs.
      const expected = localDayTotals(legs, zone);
      const mart = await martLocalDayTotals(warehouse, account.name);
      expect(new Map(mart.map((r) => [r.day, [r.legs, r.roots, r.answered]]))).toEqual(expected);
      expect(new Set(mart.map((r) => r.zone))).toEqual(new Set([zone]));
      // Partial local days: exactly the first and the last (the run read whole UTC days from the
      // config's start to its instant), as the read range says of each day.
      const days = [...expected.keys()].sort();
      expect(new Map(mart.map((r) => [r.day, r.partial]))).toEqual(
        new Map(days.map((d) => [d, isPartialDay(d, zone, read)])),
      );
      expect(
        mart
          .filter((r) => r.partial)
          .map((r) => r.day)
          .sort(),
      ).toEqual([days[0], days.at(-1)]);
      figures.push(await checkLocalReports(warehouse, account.name, zone, truth.get(account.name)!, read));
      // fct_calls: local hour histogram and the share of legs on another local day than their UTC day.
      const hours = await rows(
        warehouse,
        sql<{ hour: number; legs: number; moved: number }>`
          SELECT call_local_hour AS hour, count(*)::int AS legs,
                 count(*) FILTER (WHERE call_local_date <> call_date)::int AS moved
          FROM analytics_marts.fct_calls WHERE account = ${account.name} GROUP BY 1`,
      );
      const expectedHours = new Map<number, number>();
      for (const l of legs) {
        const hour = DateTime.fromMillis(l.startMs, { zone }).hour;
        expectedHours.set(hour, (expectedHours.get(hour) ?? 0) + 1);
      }
      expect(new Map(hours.map((r) => [r.hour, r.legs]))).toEqual(expectedHours);
      const moved = legs.filter((l) => localDay(l.startMs, zone) !== utcDay(l.startMs)).length;
      expect(hours.reduce((sum, r) => sum + r.moved, 0)).toBe(moved);
      expect(moved).toBeGreaterThan(0);
      figures.push(
        `${account.name} (${zone}): ${moved} of ${legs.length} legs (${((100 * moved) / legs.length).toFixed(1)}%) on another local day`,
      );

      // Campaign messages: the local submission day of each message.
      expect(messages.length).toBeGreaterThan(0);
      const expectedMessages = new Map<string, number>();
      for (const m of messages) {
        const day = localDay(instantMs(m.submitted_at), zone);
        expectedMessages.set(day, (expectedMessages.get(day) ?? 0) + 1);
      }
      const messageDays = await rows(
        warehouse,
        sql<{ day: string; messages: number }>`
          SELECT submitted_local_date::text AS day, count(*)::int AS messages
          FROM analytics_marts.fct_campaign_messages WHERE account = ${account.name} GROUP BY 1`,
      );
      expect(new Map(messageDays.map((r) => [r.day, r.messages]))).toEqual(expectedMessages);

      // Account peak concurrency and Erlangs per UTC day: the mart against the sweep of the truth.
      const sweep = sweepByDay(legs);
      sweeps.set(account.name, sweep);
      const concurrency = await rows(
        warehouse,
        sql<{ day: string; peak: number; talk: string; erlangs: string }>`
          SELECT call_date::text AS day, peak_concurrent_legs AS peak, talk_seconds::text AS talk,
                 erlangs::text
          FROM analytics_marts.rpt_account_concurrency_daily WHERE account = ${account.name}`,
      );
      expect(new Map(concurrency.map((r) => [r.day, r.peak]))).toEqual(
        new Map([...sweep].map(([day, r]) => [day, r.peak])),
      );
      for (const r of concurrency) {
        const e = sweep.get(r.day)!;
        expect(Number(r.talk)).toBeCloseTo(e.talkSeconds, 6);
        expect(Number(r.erlangs)).toBeCloseTo(e.talkSeconds / 86_400, 9);
      }

      // Summing the trunks' daily peaks overstates the account's: per trunk and day from the truth
      // (the same sweep, one trunk's legs), equal to the hourly mart's per trunk, summed per day.
      const trunkPeaks = new Map<string, number>();
      for (const trunk of new Set(legs.map((l) => l.trunk))) {
        for (const [day, r] of sweepByDay(legs.filter((l) => l.trunk === trunk))) {
          trunkPeaks.set(`${day} ${trunk}`, r.peak);
        }
      }
      const hourlyPeaks = await rows(
        warehouse,
        sql<{ key: string; peak: number }>`
          SELECT call_date::text || ' ' || coalesce(trunk_name, '(none)') AS key, max(peak_concurrent_legs)::int AS peak
          FROM analytics_marts.rpt_call_volume_hourly WHERE account = ${account.name}
          GROUP BY call_date, trunk_name HAVING max(peak_concurrent_legs) > 0`,
      );
      expect(new Map(hourlyPeaks.map((r) => [r.key, r.peak]))).toEqual(trunkPeaks);
      const ratios = [...sweep].map(([day, r]) => {
        const summed = [...trunkPeaks]
          .filter(([key]) => key.startsWith(`${day} `))
          .reduce((sum, [, peak]) => sum + peak, 0);
        expect(summed).toBeGreaterThanOrEqual(r.peak);
        return summed / r.peak;
      });
      const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
      expect(Math.max(...ratios)).toBeGreaterThan(1);
      figures.push(
        `${account.name}: summed trunk peaks / account peak over ${ratios.length} days: mean ${mean.toFixed(2)}x, min ${Math.min(...ratios).toFixed(2)}x, max ${Math.max(...ratios).toFixed(2)}x`,
      );
    }
    const seconds = [...built.local].map(([model, s]) => `${model} ${s.toFixed(2)} s`);
    const localSeconds = [...built.local.values()].reduce((a, b) => a + b, 0);
    expect(built.local.size).toBe(6);
    figures.push(
      `data tests of the local reports ${built.localTestSeconds.toFixed(2)} s; the UTC twins (5 reports) ${built.twinSeconds.toFixed(2)} s`,
    );
    // Every local report has a primary key (those whose grain holds NULL on grain_key, its hash).
    const keys = await rows(
      warehouse,
      sql<{ name: string }>`SELECT conrelid::regclass::text AS name FROM pg_catalog.pg_constraint
        WHERE contype = 'p' AND conrelid::regclass::text LIKE 'analytics_marts.rpt_%_daily_local' ORDER BY 1`,
    );
    expect(keys.map((k) => k.name)).toEqual([
      "analytics_marts.rpt_call_kpis_daily_local",
      "analytics_marts.rpt_campaign_daily_local",
      "analytics_marts.rpt_messages_daily_local",
      "analytics_marts.rpt_sentiment_daily_local",
      "analytics_marts.rpt_usage_daily_local",
    ]);
    figures.push(
      `dbt build ${built.totalSeconds.toFixed(1)} s, of which the local reports and the read ranges ${localSeconds.toFixed(2)} s: ${seconds.join(", ")}`,
    );
    console.log(`local time figures:\n  ${figures.join("\n  ")}`);

    // MetricFlow: the account's peak per day, and per ISO week the largest daily peak (max, not sum).
    onTestFinished(() => rm(semanticLayerFolder(database.url), { recursive: true, force: true }));
    const parsed = await parseSemanticLayer({ databaseUrl: database.url, log: pino({ level: "silent" }) });
    expect(parsed.ok, parsed.tail.join("\n")).toBe(true);
    const ask = (groupBy: string[]) =>
      queryMetrics({
        databaseUrl: database.url,
        query: { metrics: ["peak_concurrent_legs", "erlangs"], groupBy: [...groupBy, "account"] },
      });
    const daily = await ask(["metric_time__day"]);
    const expectedDaily = new Map<string, number>();
    const expectedWeekly = new Map<string, number>();
    for (const [account, sweep] of sweeps) {
      for (const [day, r] of sweep) {
        expectedDaily.set(`${account} ${day}`, r.peak);
        const week = `${account} ${DateTime.fromISO(day, { zone: "utc" }).startOf("week").toISODate()}`;
        expectedWeekly.set(week, Math.max(expectedWeekly.get(week) ?? 0, r.peak));
      }
    }
    const mfDay = (value: string | undefined) => String(value).slice(0, 10);
    expect(
      new Map(
        daily.rows.map((r) => [`${r.account} ${mfDay(r.metric_time__day)}`, Number(r.peak_concurrent_legs)]),
      ),
    ).toEqual(expectedDaily);
    for (const r of daily.rows) {
      const e = sweeps.get(String(r.account))!.get(mfDay(r.metric_time__day))!;
      expect(Number(r.erlangs)).toBeCloseTo(e.talkSeconds / 86_400, 9);
    }
    const weekly = await ask(["metric_time__week"]);
    expect(
      new Map(
        weekly.rows.map((r) => [
          `${r.account} ${mfDay(r.metric_time__week)}`,
          Number(r.peak_concurrent_legs),
        ]),
      ),
    ).toEqual(expectedWeekly);

    // The second account moves to Europe/Berlin: an incremental build re-processes all its rows,
    // the days outside the settle window too, and rewrites none of the first account's old legs.
    const [first, second] = config.accounts;
    const settledBefore = await rows(
      warehouse,
      sql<{ built: string }>`SELECT max(built_at)::text AS built FROM analytics_marts.fct_calls
        WHERE account = ${first!.name} AND call_date < '2026-08-03'`,
    );
    const moved = zonedConfig(sandbox, [zones[0], "Europe/Berlin", zones[2]]);
    const rebuilt = await build(warehouse, database.url, moved);
    console.log(
      `incremental build after the zone change: ${rebuilt.totalSeconds.toFixed(1)} s, local reports ${[...rebuilt.local].map(([m, s]) => `${m} ${s.toFixed(2)} s`).join(", ")}, their tests ${rebuilt.localTestSeconds.toFixed(2)} s, the UTC twins ${rebuilt.twinSeconds.toFixed(2)} s`,
    );
    const { legs, messages } = truth.get(second!.name)!;
    const mart = await martLocalDayTotals(warehouse, second!.name);
    expect(new Map(mart.map((r) => [r.day, [r.legs, r.roots, r.answered]]))).toEqual(
      localDayTotals(legs, "Europe/Berlin"),
    );
    // The other local reports moved it too, every day of them (their flags with it).
    console.log(
      `after the zone change: ${await checkLocalReports(warehouse, second!.name, "Europe/Berlin", truth.get(second!.name)!, read)}`,
    );
    const [facts] = await rows(
      warehouse,
      sql<{ wrong: number; zones: string[] }>`
        SELECT count(*) FILTER (WHERE call_local_date <> (called_at AT TIME ZONE 'Europe/Berlin')::date)::int AS wrong,
               array_agg(DISTINCT time_zone) AS zones
        FROM analytics_marts.fct_calls WHERE account = ${second!.name}`,
    );
    expect(facts).toEqual({ wrong: 0, zones: ["Europe/Berlin"] });
    const [messageFacts] = await rows(
      warehouse,
      sql<{ messages: number; wrong: number }>`
        SELECT count(*)::int AS messages,
               count(*) FILTER (WHERE submitted_local_date <> (submitted_at AT TIME ZONE 'Europe/Berlin')::date)::int AS wrong
        FROM analytics_marts.fct_campaign_messages WHERE account = ${second!.name}`,
    );
    expect(messageFacts).toEqual({ messages: messages.length, wrong: 0 });
    const settledAfter = await rows(
      warehouse,
      sql<{ built: string }>`SELECT max(built_at)::text AS built FROM analytics_marts.fct_calls
        WHERE account = ${first!.name} AND call_date < '2026-08-03'`,
    );
    expect(settledAfter).toEqual(settledBefore);
    const [accounts] = await rows(
      warehouse,
      sql<{ zones: string }>`SELECT string_agg(account || '=' || time_zone, ',' ORDER BY account) AS zones
        FROM analytics_marts.dim_accounts`,
    );
    expect(accounts?.zones).toBe(
      [
        `${first!.name}=${zones[0]}`,
        `${second!.name}=Europe/Berlin`,
        `${config.accounts[2]!.name}=${zones[2]}`,
      ]
        .sort()
        .join(","),
    );
  });
});
