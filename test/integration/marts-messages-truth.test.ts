import { rm } from "node:fs/promises";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import { pino } from "pino";
import { onTestFinished } from "vitest";
import { parseSemanticLayer, queryMetrics, semanticLayerFolder } from "../../src/transform/query-metrics.js";
import { biReaderRoleFor, databaseOfUrl } from "../../src/warehouse/admin/bi-reader-role.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMartsOf } from "./marts-build.js";
import { runAt, sandboxConfig, setSandboxClock, truthRecords } from "./pipeline-harness.js";

/**
 * Issue 16, all messaging and the split NANP: a small two-account world is loaded (messages,
 * CDRs), dbt builds the marts, once mid-way (messages not yet settled) and again incrementally
 * once every delivery report is in; then the marts, read as the BI role reads them, equal what
 * this file computes from the sandbox's truth export on its own: messages per direction and
 * kind, delivery rate per carrier and per country, cost per country, and the placed-call cost per
 * billed minute of the United States against Canada. Country and carrier come from this file's
 * own tables (below), never from the warehouse's seeds.
 */
const START = "2026-08-01";
const DAYS = 5;
const MIDWAY = "2026-08-04T12:00:00Z";
/** Every message is final 72 h after submission: the world's last day plus four. */
const SETTLED = "2026-08-09T06:00:00Z";
const RANGE = { from: START, to: "2026-12-31" } as const;
type Json = Record<string, unknown>;

/**
 * The networks the sandbox names, as npm `mcc-mnc-list` 1.1.11 lists them (country, brand): a
 * pair outside this table fails the test rather than being guessed.
 */
const NETWORKS: Readonly<Record<string, readonly [string, string]>> = {
  "311-480": ["US", "Verizon"],
  "310-260": ["US", "T-Mobile"],
  "310-410": ["US", "AT&T"],
  "302-610": ["CA", "Bell Mobility"],
  "302-720": ["CA", "Rogers Wireless"],
  "302-220": ["CA", "Telus Mobility, Koodo Mobile, Public Mobile"],
};
/** NANPA area codes of Canada and of the US that the sandbox dials (NANPA's public assignments). */
const CANADA_AREA_CODES = new Set(["416", "604", "514", "403", "613", "780", "905", "647", "902", "204"]);
const US_AREA_CODES = new Set(
  "212 213 312 713 305 206 617 303 404 415 646 718 202 214 480 512 602 702 801 919".split(" "),
);

/** Country of a NANP number by its area code; any other number fails the test. */
function numberCountry(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  if (digits.length !== 11 || !digits.startsWith("1")) throw new Error(`not a NANP number: ${phone}`);
  const area = digits.slice(1, 4);
  if (CANADA_AREA_CODES.has(area)) return "CA";
  if (US_AREA_CODES.has(area)) return "US";
  throw new Error(`area code ${area} is in neither list: ${phone}`);
}

/** Micro-dollars of a decimal string (money is never compared as a float sum). */
function micros(text: unknown): number {
  if (text === null || text === undefined) return 0;
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(String(text));
  if (!match) throw new Error(`not a decimal with at most 6 places: ${String(text)}`);
  return Number(match[1]) * 1_000_000 + Number((match[2] ?? "").padEnd(6, "0"));
}

/** A truth message reduced to what the oracles need. */
interface Message {
  readonly direction: string;
  readonly kind: string;
  /** The network's brand; null (no value, decision 0098) when the message names no network. */
  readonly carrier: string | null;
  readonly missingFees: boolean;
  readonly country: string;
  readonly delivered: boolean;
  readonly costMicros: number;
}

function messageOf(m: Json): Message {
  const direction = String(m.direction);
  const otherParty = String(direction === "outbound" ? m.to : m.from);
  const mcc = (m.mcc as string | null) ?? null;
  let network: readonly [string, string] | null = null;
  if (mcc !== null) {
    network = NETWORKS[`${mcc}-${String(m.mnc)}`] ?? null;
    if (network === null) throw new Error(`network ${mcc}-${String(m.mnc)} is not in the test's table`);
  }
  return {
    direction,
    kind: direction === "inbound" ? "inbound" : m.tag === null ? "transactional" : "campaign",
    carrier: network?.[1] ?? null,
    country: network?.[0] ?? numberCountry(otherParty),
    delivered: m.status === "delivered",
    // Only a delivered message carries carrier fees: one without them is missing them.
    missingFees: m.status === "delivered" && (m.carrier_fees ?? null) === null,
    costMicros: micros(m.charge) + micros(m.carrier_fees),
  };
}

/** Per key: messages, delivered, cost in micro-dollars. */
function tally(messages: readonly Message[], key: (m: Message) => string | null) {
  const out = new Map<string | null, { messages: number; delivered: number; cost: number }>();
  for (const m of messages) {
    const row = out.get(key(m)) ?? { messages: 0, delivered: 0, cost: 0 };
    row.messages += 1;
    if (m.delivered) row.delivered += 1;
    row.cost += m.costMicros;
    out.set(key(m), row);
  }
  return out;
}

/** Runs `query` as the warehouse's BI role (SET LOCAL ROLE in a transaction): what a BI tool sees. */
async function asBi<T>(warehouse: Warehouse, databaseUrl: string, query: ReturnType<typeof sql<T>>) {
  const role = biReaderRoleFor(databaseOfUrl(databaseUrl));
  return warehouse.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL ROLE ${sql.id(role)}`.execute(trx);
    return (await query.execute(trx)).rows;
  });
}

async function loadAndBuild(sandbox: RunningSandbox, warehouse: Warehouse, databaseUrl: string) {
  const base = sandboxConfig(sandbox);
  const streams = ["messages", "cdrs", "sip_trunks", "numbers"];
  const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, streams })) };
  const run = await runAt(warehouse, config, sandbox, { command: "run" });
  expect(run.streams.filter((s) => s.errors.length > 0)).toEqual([]);
  return buildMartsOf(databaseUrl, streams);
}

it.override({
  sandboxOptions: { seed: 41, start: START, days: DAYS, accounts: 2, callsPerDay: 400, now: MIDWAY },
});

describe("messaging marts and the split NANP against the sandbox's truth", () => {
  it("messages per direction, delivery rate per carrier and country, cost per country; US vs CA cost per minute", {
    timeout: 600_000,
  }, async ({ sandbox, database }) => {
    await loadAndBuild(sandbox, database.warehouse, database.url);
    await setSandboxClock(sandbox, SETTLED);
    const summary = await loadAndBuild(sandbox, database.warehouse, database.url);
    expect(summary).toMatch(/ERROR=0/);
    const bi = <T>(query: ReturnType<typeof sql<T>>) => asBi(database.warehouse, database.url, query);

    const accounts = sandbox.world.accounts.map((a) => a.name);
    const truth: Message[] = [];
    const cdrs: Json[] = [];
    for (const account of accounts) {
      truth.push(...(await truthRecords(sandbox, "messages", account, RANGE)).map(messageOf));
      cdrs.push(...(await truthRecords(sandbox, "cdrs", account, RANGE)));
    }

    // Counts per direction and kind: every message, not only campaigns.
    const byKind = tally(truth, (m) => `${m.direction} ${m.kind}`);
    expect([...byKind.keys()].sort()).toEqual([
      "inbound inbound",
      "outbound campaign",
      "outbound transactional",
    ]);
    const kinds = await bi(sql<{ key: string; messages: number }>`
      SELECT direction || ' ' || kind AS key, sum(messages)::int AS messages
      FROM analytics_marts.rpt_messages_daily GROUP BY 1`);
    expect(new Map(kinds.map((r) => [r.key, r.messages]))).toEqual(
      new Map([...byKind].map(([k, v]) => [k, v.messages])),
    );
    const [facts] = await bi(
      sql<{ rows: number }>`SELECT count(*)::int AS rows FROM analytics_marts.fct_messages`,
    );
    expect(facts?.rows).toBe(truth.length);

    // Missing carrier fees count delivered messages only (issue 35): the undelivered ones, which
    // never carry fees, are many and not counted.
    expect(truth.filter((m) => !m.delivered).length).toBeGreaterThan(0);
    const [missingFees] = await bi(sql<{ messages: number }>`
      SELECT sum(carrier_fees_missing_messages)::int AS messages FROM analytics_marts.rpt_messages_daily`);
    expect(missingFees?.messages).toBe(truth.filter((m) => m.missingFees).length);

    // Delivery rate per carrier, and per country; cost per country (charge + carrier fees).
    const figures: Record<string, unknown> = {
      messages: Object.fromEntries([...byKind].map(([k, v]) => [k, v.messages])),
    };
    for (const [dimension, key] of [
      ["carrier", (m: Message) => m.carrier],
      ["country_iso2", (m: Message) => m.country],
    ] as const) {
      const expected = tally(truth, key);
      const mart = await bi(sql<{
        key: string | null;
        messages: number;
        delivered: number;
        cost: string;
        rate: string;
      }>`
        SELECT ${sql.ref(dimension)} AS key, sum(messages)::int AS messages,
               sum(delivered_messages)::int AS delivered, sum(cost_usd)::text AS cost,
               (sum(delivered_messages)::numeric / sum(messages))::text AS rate
        FROM analytics_marts.rpt_messages_daily GROUP BY 1`);
      expect(
        new Map(
          mart.map((r) => [r.key, { messages: r.messages, delivered: r.delivered, cost: micros(r.cost) }]),
        ),
      ).toEqual(expected);
      for (const r of mart) {
        const e = expected.get(r.key)!;
        expect(Number(r.rate)).toBeCloseTo(e.delivered / e.messages, 12);
      }
      figures[dimension] = Object.fromEntries(
        [...expected].map(([k, v]) => [
          k,
          {
            messages: v.messages,
            delivery_rate: +(v.delivered / v.messages).toFixed(4),
            cost_usd: v.cost / 1e6,
          },
        ]),
      );
    }
    // The world exercises what the marts must tell apart: US and Canadian networks, messages
    // without a known network (carrier null in the mart, never a label), and a lower delivery
    // rate for those.
    const carriers = tally(truth, (m) => m.carrier);
    expect(carriers.has(null)).toBe(true);
    expect(carriers.has("Rogers Wireless")).toBe(true);
    expect(new Set(truth.map((m) => m.country))).toEqual(new Set(["US", "CA"]));
    const unknown = carriers.get(null)!;
    const verizon = carriers.get("Verizon")!;
    expect(unknown.delivered / unknown.messages).toBeLessThan(verizon.delivered / verizon.messages);

    // Placed-call cost per billed minute, United States against Canada: truth by the CDR's
    // destination label, the mart by the dialled number's country.
    const perMinute = new Map<string, { cost: number; minutes: number }>();
    for (const cdr of cdrs) {
      if (cdr.sip_trunk === null || !["United States", "Canada"].includes(String(cdr.destination))) continue;
      const country = cdr.destination === "Canada" ? "CA" : "US";
      const row = perMinute.get(country) ?? { cost: 0, minutes: 0 };
      row.cost += micros(cdr.charge);
      row.minutes += Math.ceil(Number(cdr.duration) / 60);
      perMinute.set(country, row);
    }
    const calls = await bi(sql<{ country: string; cost: string; minutes: number; per_minute: string }>`
      SELECT destination_country_iso2 AS country, sum(charge_usd)::text AS cost,
             sum(billed_minutes)::int AS minutes, (sum(charge_usd) / sum(billed_minutes))::text AS per_minute
      FROM analytics_marts.fct_calls
      WHERE direction = 'placed' AND destination_country_iso2 IN ('US', 'CA')
      GROUP BY 1`);
    expect(new Map(calls.map((r) => [r.country, { cost: micros(r.cost), minutes: r.minutes }]))).toEqual(
      perMinute,
    );
    for (const r of calls) {
      const e = perMinute.get(r.country)!;
      expect(Number(r.per_minute)).toBeCloseTo(e.cost / e.minutes / 1e6, 12);
    }
    const us = perMinute.get("US")!;
    const ca = perMinute.get("CA")!;
    expect(ca.cost / ca.minutes).toBeGreaterThan(us.cost / us.minutes);
    figures.cost_per_billed_minute = { US: us.cost / us.minutes / 1e6, CA: ca.cost / ca.minutes / 1e6 };
    console.log(`messaging and NANP figures: ${JSON.stringify(figures)}`);

    // The semantic layer answers the same per carrier: messages, delivered, the ratio metric, cost.
    onTestFinished(() => rm(semanticLayerFolder(database.url), { recursive: true, force: true }));
    const parsed = await parseSemanticLayer({ databaseUrl: database.url, log: pino({ level: "silent" }) });
    expect(parsed.ok, parsed.tail.join("\n")).toBe(true);
    const answer = await queryMetrics({
      databaseUrl: database.url,
      query: {
        metrics: [
          "all_messages",
          "all_messages_delivered",
          "all_messages_delivery_rate",
          "all_messages_cost_usd",
        ],
        groupBy: ["message__carrier"],
      },
    });
    // MetricFlow's CSV answer prints the NULL carrier group (no network) as an empty field.
    const carrierOf = (value: unknown): string | null =>
      value === null || value === undefined || value === "" ? null : String(value);
    expect(
      new Map(
        answer.rows.map((r) => [
          carrierOf(r.message__carrier),
          {
            messages: Number(r.all_messages),
            delivered: Number(r.all_messages_delivered),
            // MetricFlow prints a sum as it comes (not always 6 places): rounded to micro-dollars.
            cost: Math.round(Number(r.all_messages_cost_usd) * 1e6),
          },
        ]),
      ),
    ).toEqual(carriers);
    for (const r of answer.rows) {
      const e = carriers.get(carrierOf(r.message__carrier))!;
      expect(Number(r.all_messages_delivery_rate)).toBeCloseTo(e.delivered / e.messages, 12);
    }
  });
});
