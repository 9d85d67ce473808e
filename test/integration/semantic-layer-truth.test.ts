import { rm } from "node:fs/promises";
import { pino } from "pino";
import { onTestFinished } from "vitest";
import { parseSemanticLayer, queryMetrics, semanticLayerFolder } from "../../src/transform/query-metrics.js";
import { runCli } from "../helpers/cli.js";
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
 */
const START = "2026-08-01";
const ACCOUNT = "master";
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

describe("semantic layer: MetricFlow's answers against the sandbox's truth", () => {
  it("calls and ASR per day, sentiment per day, messages and unique clickers per campaign and in total", {
    timeout: 400_000,
  }, async ({ sandbox, database }) => {
    const base = sandboxConfig(sandbox, { transcriptionMaxAgeDays: 60 });
    const config = {
      ...base,
      accounts: base.accounts.map((a) => ({
        ...a,
        streams: ["cdrs", "sip_trunks", "numbers", "transcriptions", "messages", "short_link_metrics"],
      })),
    };
    const run = await runAt(database.warehouse, config, sandbox, { command: "run" });
    expect(run.streams.filter((s) => s.errors.length > 0)).toEqual([]);
    // Built in the build schema and published, as every night: the time spine must survive that.
    const transform = await runCli(["transform"], {
      env: { DATABASE_URL: database.url },
      timeoutMs: 300_000,
    });
    expect(transform.code, transform.stderr.slice(-3000)).toBe(0);

    onTestFinished(() => rm(semanticLayerFolder(database.url), { recursive: true, force: true }));
    const parsed = await parseSemanticLayer({ databaseUrl: database.url, log: pino({ level: "silent" }) });
    expect(parsed.ok, parsed.tail.join("\n")).toBe(true);
    const ask = (metrics: string[], groupBy: string[] = []) =>
      queryMetrics({ databaseUrl: database.url, query: { metrics, groupBy } });

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
  });
});
