import { spawnSync } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import { sql } from "kysely";
import { DateTime } from "luxon";
import { pino } from "pino";
import { onTestFinished } from "vitest";
import {
  type MetricsQuery,
  metricflowExecutable,
  openMetricsSession,
  parseSemanticLayer,
  queryMetrics,
  semanticLayerFolder,
} from "../../src/transform/query-metrics.js";
import { dbtEnvironment, projectRoot } from "../../src/transform/run-dbt.js";
import { recordAccountTimeZones } from "../../src/warehouse/admin/account-time-zones.js";
import { runCli } from "../helpers/cli.js";
import { sweepByDay } from "../helpers/concurrency-truth.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";

/**
 * Issue 16, item 1: the semantic layer answered by MetricFlow. A small sandbox world is loaded,
 * `telecom-etl transform` builds and publishes the marts (the time spine with them), and `mf query`
 * (the project's dbt-metricflow) is asked for calls and ASR per day, sentiment per day, messages
 * sent and delivered and unique clickers per campaign, and unique clickers over the whole world;
 * each answer equals what this file computes from the sandbox's truth export alone (never from the
 * marts). Unique clickers over the whole world is also less than the sum of the per-day answers:
 * the world is one where summing a distinct count would be wrong, so the check means something.
 *
 * Issue 35, item 4: the dimension semantic models and the new metrics, each against the truth
 * alone: calls by the placing trunk's label and by local hour, numbers held and their MRC, opt-outs,
 * sentiment by side (agent turns are the even ones, the generator's rule), usage spend of calls per
 * day, the peak per carrying trunk per day, and the non-additive rules asked by week: a trunk's
 * peak is its largest daily peak, Erlangs are the mean of the days' Erlangs, not their sum. The
 * queries go through one MetricFlow session; `mf query`'s start-up and a warm query are timed.
 */
const START = "2026-08-01";
const ACCOUNT = "master";
const ZONE = "Asia/Kolkata";
const RANGE = { from: START, to: "2026-08-06" } as const;
type Json = Record<string, unknown>;

it.override({
  sandboxOptions: {
    seed: 23,
    start: START,
    days: 4,
    accounts: 1,
    callsPerDay: 120,
    // After the last day: every CDR, message, click and transcription of the world is final.
    now: "2026-08-05T06:00:00Z",
  },
});

const digits = (phone: unknown): string => String(phone).replace(/\D/g, "");
/** UTC day of a platform time (`2026-08-01 12:00:00`, with or without a zone). */
const utcDay = (value: unknown): string => {
  const text = String(value).replace(" ", "T");
  return new Date(/[Zz]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`).toISOString().slice(0, 10);
};
/** MetricFlow's day (`2026-08-01T00:00:00` or `2026-08-01 00:00:00`) as a date. */
const mfDay = (value: string | undefined): string => String(value).slice(0, 10);

function countBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const row of rows) out.set(key(row), (out.get(key(row)) ?? 0) + 1);
  return out;
}

const micros = (value: unknown): number =>
  value === null || value === undefined ? 0 : Math.round(Number(value) * 1e6);
const instantMs = (value: unknown): number => {
  const text = String(value).replace(" ", "T");
  return Date.parse(/[Zz]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
};
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const isoWeek = (day: string): string => DateTime.fromISO(day, { zone: "utc" }).startOf("week").toISODate()!;

/** A truth CDR as a channel occupancy: [start, end) on its carrying trunk (`(none)` without one). */
interface Leg {
  readonly startMs: number;
  readonly endMs: number;
  readonly trunk: string;
}

function legsOf(cdrs: readonly Json[], trunkNames: ReadonlySet<string>): Leg[] {
  return cdrs.map((cdr) => {
    const startMs = instantMs(cdr.date);
    const sipTrunk = (cdr.sip_trunk as string | null | undefined) ?? null;
    const destination = (cdr.destination as string | null | undefined) ?? null;
    return {
      startMs,
      endMs: startMs + Number(cdr.duration) * 1000,
      trunk: sipTrunk ?? (destination !== null && trunkNames.has(destination) ? destination : "(none)"),
    };
  });
}

/** A turn's sentiment as a 1–5 score (the data model's rule); undefined when unscored. */
const TURN_SCORES: Record<string, number> = { positive: 5, neutral: 3, mixed: 3, negative: 1 };

/** Seconds `mf query` (the command line) takes for `query`, start-up included. */
function mfCommandSeconds(databaseUrl: string, query: MetricsQuery): number {
  const root = projectRoot();
  const started = performance.now();
  const done = spawnSync(
    metricflowExecutable(root)!,
    ["query", "--quiet", "--metrics", query.metrics.join(","), "--group-by", (query.groupBy ?? []).join(",")],
    {
      cwd: semanticLayerFolder(databaseUrl),
      env: {
        ...process.env,
        ...dbtEnvironment(databaseUrl),
        DBT_MARTS_BUILD_SCHEMA: "",
        DBT_PROFILES_DIR: path.join(root, "dbt"),
        DBT_PROJECT_DIR: semanticLayerFolder(databaseUrl),
      },
    },
  );
  if (done.status !== 0) throw new Error(`mf query: ${String(done.stderr).slice(-500)}`);
  return (performance.now() - started) / 1000;
}

describe("semantic layer: MetricFlow's answers against the sandbox's truth", () => {
  it("calls and ASR per day, sentiment per day, messages and unique clickers per campaign and in total", {
    timeout: 500_000,
  }, async ({ sandbox, database }) => {
    const base = sandboxConfig(sandbox, { transcriptionMaxAgeDays: 60 });
    const config = {
      ...base,
      accounts: base.accounts.map((a) => ({
        ...a,
        streams: [
          "cdrs",
          "sip_trunks",
          "numbers",
          "transcriptions",
          "messages",
          "short_link_metrics",
          "message_opt_outs",
        ],
      })),
    };
    const run = await runAt(database.warehouse, config, sandbox, { command: "run" });
    expect(run.streams.filter((s) => s.errors.length > 0)).toEqual([]);
    // Built in the build schema and published, as every night: the time spine must survive that.
    // The account's zone (as a config's `timezone` records it): its local hours are 5:30 off UTC.
    await recordAccountTimeZones(database.warehouse.db, [{ account: ACCOUNT, timeZone: ZONE }]);
    const transform = await runCli(["transform"], {
      env: { DATABASE_URL: database.url },
      timeoutMs: 300_000,
    });
    expect(transform.code, transform.stderr.slice(-3000)).toBe(0);

    onTestFinished(() => rm(semanticLayerFolder(database.url), { recursive: true, force: true }));
    const parsed = await parseSemanticLayer({ databaseUrl: database.url, log: pino({ level: "silent" }) });
    expect(parsed.ok, parsed.tail.join("\n")).toBe(true);
    // Start-up: `mf query` by the command line against one warm session (median of 3 each).
    const timed: MetricsQuery = { metrics: ["calls"], groupBy: ["metric_time__day"] };
    const mfSeconds = [0, 1, 2].map(() => mfCommandSeconds(database.url, timed));
    let started = performance.now();
    await queryMetrics({ databaseUrl: database.url, query: timed });
    const oneShotSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const session = await openMetricsSession({ databaseUrl: database.url });
    onTestFinished(() => session.close());
    const sessionStartSeconds = (performance.now() - started) / 1000;
    const warmSeconds: number[] = [];
    for (let i = 0; i < 4; i++) {
      started = performance.now();
      await session.query(timed);
      if (i > 0) warmSeconds.push((performance.now() - started) / 1000);
    }
    console.info(
      `MetricFlow seconds: mf query ${mfSeconds.map((x) => x.toFixed(2)).join(", ")} (median ${median(mfSeconds).toFixed(2)}); ` +
        `one query in its own process ${oneShotSeconds.toFixed(2)}; session start ${sessionStartSeconds.toFixed(2)}; ` +
        `warm ${warmSeconds.map((x) => x.toFixed(3)).join(", ")} (median ${median(warmSeconds).toFixed(3)})`,
    );
    expect(median(warmSeconds)).toBeLessThan(median(mfSeconds) / 2);
    // A refused query is an answer: the session names why and keeps answering.
    await expect(session.query({ metrics: ["no_such_metric"] })).rejects.toThrow(/^mf query failed: ./);
    expect((await session.query(timed)).rows.length).toBeGreaterThan(0);
    const ask = (metrics: string[], groupBy: string[] = [], where?: string) =>
      session.query({ metrics, groupBy, ...(where === undefined ? {} : { where }) });

    // Calls (root attempts) and ASR per UTC day.
    const cdrs = await truthRecords(sandbox, "cdrs", ACCOUNT, RANGE);
    const roots = cdrs.filter((c) => (c.parent_uuid ?? c.parent_call_id ?? null) === null);
    const attempts = countBy(roots, (c) => utcDay(c.date));
    const answered = countBy(
      roots.filter((c) => c.disposition === "answered"),
      (c) => utcDay(c.date),
    );
    expect(attempts.size).toBe(4);
    const calls = await ask(["calls", "answered_calls", "asr"], ["metric_time__day"]);
    expect(new Map(calls.rows.map((r) => [mfDay(r.metric_time__day), Number(r.calls)]))).toEqual(attempts);
    for (const r of calls.rows) {
      const day = mfDay(r.metric_time__day);
      expect(Number(r.answered_calls), day).toBe(answered.get(day) ?? 0);
      expect(Number(r.asr), day).toBeCloseTo((answered.get(day) ?? 0) / attempts.get(day)!, 12);
      // Divided in numeric, not double precision: exactly Postgres' quotient of the truth's counts.
      const exact = await sql<{ same: boolean }>`
        SELECT ${r.asr}::numeric = ${answered.get(day) ?? 0}::numeric / ${attempts.get(day)!} AS same`.execute(
        database.warehouse.db,
      );
      expect(exact.rows[0]!.same, `${day}: asr ${r.asr} is not the numeric quotient`).toBe(true);
    }

    // Sentiment per day of the call: average score and negative share (score ≤ 3), scored calls only.
    const callDay = new Map(cdrs.map((c) => [String(c.uuid ?? c.call_id), utcDay(c.date)]));
    const transcriptions = await truthRecords(sandbox, "transcriptions", ACCOUNT, RANGE);
    const sentiment = new Map<string, { sum: number; scored: number; negative: number }>();
    for (const t of transcriptions) {
      const score = t.transcription_score ?? t.call_score ?? null;
      if (score === null) continue;
      const day = callDay.get(String(t.request_id ?? t.call_uuid))!;
      const row = sentiment.get(day) ?? { sum: 0, scored: 0, negative: 0 };
      row.sum += Number(score);
      row.scored += 1;
      if (Number(score) <= 3) row.negative += 1;
      sentiment.set(day, row);
    }
    expect(transcriptions.length).toBeGreaterThan(20);
    const scores = await ask(
      ["scored_calls", "sentiment_score_average", "negative_call_rate"],
      ["metric_time__day"],
    );
    expect(new Map(scores.rows.map((r) => [mfDay(r.metric_time__day), Number(r.scored_calls)]))).toEqual(
      new Map([...sentiment].map(([day, s]) => [day, s.scored])),
    );
    for (const r of scores.rows) {
      const e = sentiment.get(mfDay(r.metric_time__day))!;
      expect(Number(r.sentiment_score_average)).toBeCloseTo(e.sum / e.scored, 9);
      expect(Number(r.negative_call_rate)).toBeCloseTo(e.negative / e.scored, 12);
    }

    // Campaign messages sent and delivered, unique clickers and CTR per campaign (`account:tag`).
    const messages = (await truthRecords(sandbox, "messages", ACCOUNT, RANGE)).filter(
      (m: Json) => m.direction === "outbound" && m.tag !== null && m.tag !== undefined,
    );
    const clicks = await truthRecords(sandbox, "short_link_metrics", ACCOUNT, RANGE);
    const sent = countBy(messages, (m) => `${ACCOUNT}:${m.tag}`);
    const delivered = countBy(
      messages.filter((m) => m.status === "delivered"),
      (m) => `${ACCOUNT}:${m.tag}`,
    );
    const clickers = new Map<string, Set<string>>();
    for (const c of clicks) {
      const campaign = `${ACCOUNT}:${c.utm_campaign}`;
      clickers.set(campaign, (clickers.get(campaign) ?? new Set()).add(digits(c.phone)));
    }
    expect(sent.size).toBeGreaterThanOrEqual(2);
    const campaigns = await ask(
      ["messages_sent", "messages_delivered", "delivery_rate", "unique_clickers", "click_through_rate"],
      ["campaign"],
    );
    expect(
      new Map(
        campaigns.rows.map((r) => [r.campaign, [Number(r.messages_sent), Number(r.messages_delivered)]]),
      ),
    ).toEqual(new Map([...sent].map(([c, n]) => [c, [n, delivered.get(c) ?? 0]])));
    for (const r of campaigns.rows) {
      const campaign = String(r.campaign);
      const unique = clickers.get(campaign)?.size ?? 0;
      expect(Number(r.unique_clickers || 0), campaign).toBe(unique);
      expect(Number(r.delivery_rate)).toBeCloseTo((delivered.get(campaign) ?? 0) / sent.get(campaign)!, 12);
      if (unique > 0) {
        expect(Number(r.click_through_rate)).toBeCloseTo(unique / delivered.get(campaign)!, 12);
      }
    }

    // Unique clickers over the whole world: a distinct count, not the sum of the days' uniques.
    const everyone = new Set(clicks.map((c) => digits(c.phone))).size;
    const [total] = (await ask(["unique_clickers", "clicks"])).rows;
    expect(Number(total?.unique_clickers)).toBe(everyone);
    expect(Number(total?.clicks)).toBe(clicks.length);
    const perDay = await ask(["unique_clickers"], ["metric_time__day"]);
    const summedDays = perDay.rows.reduce((s, r) => s + Number(r.unique_clickers), 0);
    expect(summedDays).toBeGreaterThan(everyone);

    // Opt-outs over the whole world: each once, those of every sender apart, over delivered messages.
    const optOuts = await truthRecords(sandbox, "message_opt_outs", ACCOUNT, RANGE);
    expect(optOuts.length).toBeGreaterThan(0);
    const [opted] = (await ask(["opt_outs", "all_sender_opt_outs", "opt_out_rate"])).rows;
    expect(Number(opted?.opt_outs)).toBe(optOuts.length);
    expect(Number(opted?.all_sender_opt_outs)).toBe(
      optOuts.filter((o) => (o.sender_id ?? null) === null).length,
    );
    const deliveredTotal = [...delivered.values()].reduce((a, b) => a + b, 0);
    expect(Number(opted?.opt_out_rate)).toBeCloseTo(optOuts.length / deliveredTotal, 12);

    // Calls by the placing trunk's label (dimension model placing_trunks) and by local hour (the
    // account is in Asia/Kolkata: a local hour is not a UTC hour), and the account's time zone.
    const trunks = await truthRecords(sandbox, "sip_trunks", ACCOUNT);
    const labelOf = new Map(trunks.map((t) => [String(t.name), String(t.label ?? "")]));
    const byLabel = countBy(
      roots.filter((c) => typeof c.sip_trunk === "string" && (labelOf.get(c.sip_trunk) ?? "") !== ""),
      (c) => labelOf.get(String(c.sip_trunk))!,
    );
    expect(byLabel.size).toBeGreaterThanOrEqual(1);
    const labelled = await ask(["calls"], ["placing_trunk__trunk_label"]);
    expect(
      new Map(
        labelled.rows
          .filter((r) => r.placing_trunk__trunk_label !== "")
          .map((r) => [r.placing_trunk__trunk_label, Number(r.calls)]),
      ),
    ).toEqual(byLabel);
    const byHour = countBy(roots, (c) => String(DateTime.fromMillis(instantMs(c.date), { zone: ZONE }).hour));
    const hourly = await ask(["calls"], ["call_leg__call_local_hour", "account__time_zone"]);
    expect(new Set(hourly.rows.map((r) => r.account__time_zone))).toEqual(new Set([ZONE]));
    expect(
      new Map(hourly.rows.map((r) => [String(Number(r.call_leg__call_local_hour)), Number(r.calls)])),
    ).toEqual(byHour);

    // Numbers held and their monthly fees (MRC), from the numbers list.
    const numbers = await truthRecords(sandbox, "numbers", ACCOUNT);
    expect(numbers.length).toBeGreaterThan(0);
    const [held] = (await ask(["numbers_held", "number_mrc_usd"], ["account"])).rows;
    expect(Number(held?.numbers_held)).toBe(numbers.length);
    expect(micros(held?.number_mrc_usd)).toBe(numbers.reduce((sum, n) => sum + micros(n.monthly_fee), 0));

    // Sentiment by side per call day: the account's side speaks the even turns, the caller the odd.
    const sides = new Map<string, { agent: [number, number]; customer: [number, number] }>();
    for (const t of transcriptions) {
      const turns = (t.turns ?? []) as Json[];
      const day = callDay.get(String(t.request_id ?? t.call_uuid));
      if (day === undefined || turns.length === 0) continue;
      const row = sides.get(day) ?? { agent: [0, 0], customer: [0, 0] };
      turns.forEach((turn, i) => {
        const score = TURN_SCORES[String(turn.sentiment)];
        if (score === undefined) return;
        const side = i % 2 === 0 ? row.agent : row.customer;
        side[0] += score;
        side[1] += 1;
      });
      sides.set(day, row);
    }
    expect(sides.size).toBeGreaterThan(0);
    const bySide = await ask(
      ["agent_scored_turns", "agent_avg_turn_score", "customer_scored_turns", "customer_avg_turn_score"],
      ["metric_time__day"],
    );
    expect(new Set(bySide.rows.map((r) => mfDay(r.metric_time__day)))).toEqual(new Set(sides.keys()));
    for (const r of bySide.rows) {
      const e = sides.get(mfDay(r.metric_time__day))!;
      expect(Number(r.agent_scored_turns)).toBe(e.agent[1]);
      expect(Number(r.customer_scored_turns)).toBe(e.customer[1]);
      expect(Number(r.agent_avg_turn_score)).toBeCloseTo(e.agent[0] / e.agent[1], 9);
      expect(Number(r.customer_avg_turn_score)).toBeCloseTo(e.customer[0] / e.customer[1], 9);
    }

    // Usage spend of calls per UTC day: the legs' charges.
    const charges = new Map<string, number>();
    for (const c of cdrs) charges.set(utcDay(c.date), (charges.get(utcDay(c.date)) ?? 0) + micros(c.charge));
    const usage = await ask(
      ["usage_spend_usd"],
      ["metric_time__day"],
      "{{ Dimension('usage_row__product') }} = 'calls'",
    );
    expect(new Map(usage.rows.map((r) => [mfDay(r.metric_time__day), micros(r.usage_spend_usd)]))).toEqual(
      charges,
    );

    // Peak per carrying trunk per day, and by week its largest daily peak; Erlangs by week are the
    // mean of the days' Erlangs (days with traffic), never their sum.
    const legs = legsOf(cdrs, new Set(labelOf.keys()));
    const trunkPeaks = new Map<string, number>();
    const trunkWeekPeaks = new Map<string, number>();
    for (const trunk of new Set(legs.map((l) => l.trunk).filter((t) => t !== "(none)"))) {
      for (const [day, r] of sweepByDay(legs.filter((l) => l.trunk === trunk))) {
        trunkPeaks.set(`${ACCOUNT}:${trunk} ${day}`, r.peak);
        const week = `${ACCOUNT}:${trunk} ${isoWeek(day)}`;
        trunkWeekPeaks.set(week, Math.max(trunkWeekPeaks.get(week) ?? 0, r.peak));
      }
    }
    const peakOf = (rows: readonly Record<string, string>[], time: string) =>
      new Map(
        rows
          .filter((r) => r.carrying_trunk !== "")
          .map((r) => [`${r.carrying_trunk} ${mfDay(r[time])}`, Number(r.trunk_peak_concurrent_legs)]),
      );
    expect(trunkPeaks.size).toBeGreaterThan(0);
    const trunkDaily = await ask(["trunk_peak_concurrent_legs"], ["metric_time__day", "carrying_trunk"]);
    expect(peakOf(trunkDaily.rows, "metric_time__day")).toEqual(trunkPeaks);
    const trunkWeekly = await ask(["trunk_peak_concurrent_legs"], ["metric_time__week", "carrying_trunk"]);
    expect(peakOf(trunkWeekly.rows, "metric_time__week")).toEqual(trunkWeekPeaks);
    const weeks = new Map<string, number[]>();
    for (const [day, r] of sweepByDay(legs))
      weeks.set(isoWeek(day), [...(weeks.get(isoWeek(day)) ?? []), r.talkSeconds / 86_400]);
    const erlangs = await ask(["erlangs"], ["metric_time__week"]);
    expect(new Set(erlangs.rows.map((r) => mfDay(r.metric_time__week)))).toEqual(new Set(weeks.keys()));
    for (const r of erlangs.rows) {
      const days = weeks.get(mfDay(r.metric_time__week))!;
      const sum = days.reduce((a, b) => a + b, 0);
      expect(Number(r.erlangs)).toBeCloseTo(sum / days.length, 9);
      if (days.length > 1) expect(Number(r.erlangs)).toBeLessThan(sum);
    }
    expect([...weeks.values()].some((days) => days.length > 1)).toBe(true);
    console.info(
      `Erlangs by week, mean of the days (sum of the days): ${erlangs.rows
        .map((r) => {
          const days = weeks.get(mfDay(r.metric_time__week))!;
          return `${mfDay(r.metric_time__week)} ${Number(r.erlangs).toFixed(4)} (${days.reduce((a, b) => a + b, 0).toFixed(4)})`;
        })
        .join(", ")}; trunk-days compared ${trunkPeaks.size}, trunk-weeks ${trunkWeekPeaks.size}`,
    );
  });
});
