import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import { pino } from "pino";
import type { EtlConfig } from "../../src/config/config.js";
import { runPipeline } from "../../src/pipeline/run/run-pipeline.js";
import { runDbt, WITHOUT_UNIT_TESTS } from "../../src/transform/run-dbt.js";
import { runCli } from "../helpers/cli.js";
import { test as base, describe, expect } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { sandboxConfig, setSandboxClock, truthRecords } from "./pipeline-harness.js";
import { readmeExampleQueries } from "./readme-queries.js";

/**
 * Issue 9, campaign / billing / validation marts: a two-month sandbox world is loaded the way a
 * nightly would (each validation read on the day it is made, then everything once settled), dbt
 * builds the marts, and their figures equal what this file computes from the sandbox's truth
 * export alone: messages per campaign, unique clickers over a campaign's life, callbacks and
 * converted clickers by the stated attribution rule (issue 35 item 6), invoice variances (exactly
 * the seeded discrepancies, to the cent), validations.
 */
const START = "2026-07-01";
const NOW = "2026-09-05T00:00:00Z";
const RANGE = { from: START, to: "2026-12-31" } as const;
const DAY_MS = 86_400_000;
const WINDOW_MS = 24 * 3_600_000;

type Json = Record<string, unknown>;

/** A decimal string as exact micro-dollars (independent of the sandbox's and the loader's money code). */
function micros(text: unknown): number {
  if (text === null || text === undefined) return 0;
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(String(text));
  if (!match) throw new Error(`not a decimal with at most 6 places: ${String(text)}`);
  const value = Number(match[2]) * 1_000_000 + Number((match[3] ?? "").padEnd(6, "0"));
  return match[1] === "-" ? -value : value;
}

/** A decimal string as exact 1e-18 dollars (the ledger's amounts have up to 17 significant digits). */
function attoDollars(text: unknown): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,18}))?$/.exec(String(text));
  if (!match) throw new Error(`not a decimal with at most 18 places: ${String(text)}`);
  const value = BigInt(match[2]!) * 10n ** 18n + BigInt((match[3] ?? "").padEnd(18, "0"));
  return match[1] === "-" ? -value : value;
}

const digits = (phone: unknown): string => String(phone).replace(/\D/g, "");
/** Epoch ms of a platform time (`2026-08-01 12:00:00.120Z` or ISO). */
const instant = (text: unknown): number => Date.parse(String(text).replace(" ", "T"));

/** A config reading `streams` of every account, tracking `tokens` (per account) and every transcription. */
function configFor(
  sandbox: RunningSandbox,
  streams: readonly string[],
  tokens: (account: string) => readonly string[],
): EtlConfig {
  const base = sandboxConfig(sandbox, { transcriptionMaxAgeDays: 120 });
  return {
    ...base,
    accounts: base.accounts.map((account) => ({
      ...account,
      streams: [...streams],
      sources: {
        subAccounts: [],
        brandIds: undefined,
        validationTokens: [...tokens(account.name)],
        numberCatalog: { countries: [], textEnabledOnly: false },
      },
    })),
  };
}

/**
 * One run on the sandbox's time: "today" and every row's `_extracted_at` are sandbox time (a clock
 * that starts at the sandbox's fixed "now" and ticks with the wall clock, so rate budgets refill).
 */
async function runAtSandboxTime(database: TestDatabase, config: EtlConfig, sandbox: RunningSandbox) {
  const offset = sandbox.runtime.clock.now() - Date.now();
  const clock = { now: () => Date.now() + offset };
  return runPipeline(
    {
      config,
      warehouse: database.warehouse,
      log: pino({ level: "silent" }),
      signal: new AbortController().signal,
      host: "test",
      clock,
      runStartedAt: clock.now(),
    },
    { command: "run" },
  );
}

/**
 * Loads the world as a nightly would and builds the marts: each validation is read on the UTC day
 * it is made (at its end, or once processed if sooner), so the warehouse dates it right; then, at
 * NOW (every message, late CDR and transcription of July and August settled), every stream.
 */
async function loadAndBuild(sandbox: RunningSandbox, database: TestDatabase): Promise<void> {
  const validations = sandbox.world.accounts.flatMap((account) =>
    account.validations.map((v) => ({ account: account.name, ...v })),
  );
  const readAt = (v: (typeof validations)[number]) =>
    Math.min(v.createdAtMs + v.processingMs, Math.floor(v.createdAtMs / DAY_MS) * DAY_MS + DAY_MS - 1000);
  validations.sort((a, b) => readAt(a) - readAt(b));
  for (const v of validations) {
    await setSandboxClock(sandbox, new Date(readAt(v)).toISOString());
    const made = (account: string) =>
      validations.filter((o) => o.account === account && readAt(o) <= readAt(v)).map((o) => o.token);
    const result = await runAtSandboxTime(database, configFor(sandbox, ["validations"], made), sandbox);
    expect(result.exitCode, `validations read at ${new Date(readAt(v)).toISOString()}`).toBe(0);
  }
  await setSandboxClock(sandbox, NOW);
  const every = [
    "cdrs",
    "short_link_metrics",
    "invoices",
    "messages",
    "sip_trunks",
    "numbers",
    "transcriptions",
    "transactions",
  ];
  const all = (account: string) => validations.filter((v) => v.account === account).map((v) => v.token);
  const run = await runAtSandboxTime(
    database,
    configFor(sandbox, [...every, "validations", "brand_appeals"], all),
    sandbox,
  );
  expect(run.exitCode).toBe(0);
  const transform = await runCli(["transform", "--unit-tests"], {
    env: { DATABASE_URL: database.url },
    timeoutMs: 300_000,
  });
  expect(transform.code, transform.stderr.slice(-3000) + transform.stdout.slice(-3000)).toBe(0);
  // Again, incrementally (clicks, usage and call reports re-build their last days only): the
  // assertions below then check what a nightly build leaves, which must equal the full build.
  const nightly = await runCli(["transform"], { env: { DATABASE_URL: database.url }, timeoutMs: 300_000 });
  expect(nightly.code, nightly.stderr.slice(-3000) + nightly.stdout.slice(-3000)).toBe(0);
}

const it = base
  .extend("built", { scope: "file" }, async ({ sandbox, database }) => {
    await loadAndBuild(sandbox, database);
    return true;
  })
  .extend("truth", { scope: "file" }, async ({ sandbox }) => {
    const of = (stream: string, account: string, windowed = true) =>
      truthRecords(sandbox, stream, account, windowed ? RANGE : {});
    const accounts = sandbox.world.accounts.map((a) => a.name);
    const byAccount = async (stream: string, windowed = true) =>
      new Map(await Promise.all(accounts.map(async (a) => [a, await of(stream, a, windowed)] as const)));
    return {
      accounts,
      messages: await byAccount("messages"),
      clicks: await byAccount("short_link_metrics"),
      cdrs: await byAccount("cdrs"),
      invoices: await byAccount("invoices", false),
      validations: await byAccount("validations", false),
      appeals: await byAccount("brand_appeals", false),
    };
  });

it.override({
  sandboxOptions: { seed: 13, start: START, days: 62, callsPerDay: 20, accounts: 2, now: NOW, port: 0 },
});

/** How a callback is credited (dbt var callback_attribution): the latest click before it or the earliest in the window. */
type CallbackRule = "last_click" | "first_click";

/** Per campaign: the callbacks credited to its clicks, and the clickers whose first callback went to it. */
interface CampaignCallbacks {
  readonly callbacks: number;
  readonly converted: number;
}

/**
 * The stated rule applied to the truth alone: a callback is an answered call the account received
 * (the truth's `direction`) from a clicker's phone, at or after one of its clicks and less than
 * 24 h after it; it is credited to exactly one of those clicks (the latest or the earliest, by
 * `rule`); a clicker converts in the campaign its first callback is credited to. Also the
 * (clicker, campaign) pairs with a credited callback: what converted clickers would sum to over
 * campaigns if a clicker counted in each campaign a callback of theirs went to.
 */
function creditCallbacks(
  clicks: readonly Json[],
  cdrs: readonly Json[],
  rule: CallbackRule,
): { perCampaign: Map<string, CampaignCallbacks>; convertedPhones: number; pairs: number } {
  const byPhone = groupBy(
    clicks.map((c) => ({
      phone: digits(c.phone),
      at: instant(c.created_at),
      campaign: String(c.utm_campaign),
    })),
    (c) => c.phone,
    (g) => g.sort((a, b) => a.at - b.at),
  );
  const credited = cdrs
    .filter((c) => c.direction === "received" && c.disposition === "answered")
    .map((c) => ({ phone: digits(c.from), at: instant(c.date) }))
    .sort((a, b) => a.at - b.at)
    .flatMap((call) => {
      const inWindow = (byPhone.get(call.phone) ?? []).filter(
        (k) => k.at <= call.at && call.at < k.at + WINDOW_MS,
      );
      const click = rule === "last_click" ? inWindow.at(-1) : inWindow[0];
      return click === undefined ? [] : [{ phone: call.phone, campaign: click.campaign }];
    });
  const firstCampaign = new Map<string, string>();
  for (const c of credited) if (!firstCampaign.has(c.phone)) firstCampaign.set(c.phone, c.campaign);
  const campaigns = new Set(credited.map((c) => c.campaign));
  const perCampaign = new Map(
    [...campaigns].map((campaign) => [
      campaign,
      {
        callbacks: credited.filter((c) => c.campaign === campaign).length,
        converted: [...firstCampaign.values()].filter((f) => f === campaign).length,
      },
    ]),
  );
  const pairs = new Set(credited.map((c) => `${c.phone}|${c.campaign}`)).size;
  return { perCampaign, convertedPhones: firstCampaign.size, pairs };
}

/** Callbacks and converted clickers per account × campaign in rpt_campaign_totals, and the rule it states. */
async function martCallbacks(database: TestDatabase) {
  const { rows } = await sql<{ line: string }>`
    SELECT concat_ws(' ', account, campaign, callbacks, converted_clickers, callback_attribution_rule,
                     conversion_window_hours) AS line
    FROM analytics_marts.rpt_campaign_totals WHERE clicks > 0 ORDER BY account, campaign`.execute(
    database.warehouse.db,
  );
  return rows.map((r) => r.line);
}

/** What martCallbacks must read when the truth is credited by `rule`. */
function expectedCallbacks(
  truth: { accounts: string[]; clicks: Map<string, Json[]>; cdrs: Map<string, Json[]> },
  rule: CallbackRule,
) {
  return truth.accounts.flatMap((account) => {
    const { perCampaign } = creditCallbacks(
      truth.clicks.get(account) ?? [],
      truth.cdrs.get(account) ?? [],
      rule,
    );
    const campaigns = [
      ...new Set((truth.clicks.get(account) ?? []).map((c) => String(c.utm_campaign))),
    ].sort();
    return campaigns.map((campaign) => {
      const c = perCampaign.get(campaign);
      return `${account} ${campaign} ${c?.callbacks ?? 0} ${c?.converted ?? 0} ${rule} 24`;
    });
  });
}

/** Rows grouped by a key, each group reduced. */
function groupBy<T, R>(
  rows: readonly T[],
  key: (row: T) => string,
  reduce: (group: T[]) => R,
): Map<string, R> {
  const groups = new Map<string, T[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return new Map([...groups].map(([k, g]) => [k, reduce(g)]));
}

describe("campaign, invoice and validation marts against the sandbox truth", () => {
  it("campaign totals: messages sent and delivered, unique clickers over the whole life, conversions", {
    timeout: 400_000,
  }, async ({ built, truth, database }) => {
    expect(built).toBe(true);
    const mart = await sql<{
      account: string;
      campaign: string;
      messages_sent: number;
      messages_delivered: number;
      clicks: number;
      unique_clickers: number;
      converted_clickers: number;
      callbacks: number;
    }>`SELECT account, campaign, messages_sent::int, messages_delivered::int, clicks::int,
          unique_clickers::int, converted_clickers::int, callbacks::int
       FROM analytics_marts.rpt_campaign_totals ORDER BY account, campaign`.execute(database.warehouse.db);

    const expected: Json[] = [];
    let summedDailyExceedsLife = false;
    for (const account of truth.accounts) {
      const sent = (truth.messages.get(account) ?? []).filter(
        (m) => m.direction === "outbound" && m.tag !== null,
      );
      const messages = groupBy(
        sent,
        (m) => String(m.tag),
        (g) => ({ sent: g.length, delivered: g.filter((m) => m.status === "delivered").length }),
      );
      const credit = creditCallbacks(
        truth.clicks.get(account) ?? [],
        truth.cdrs.get(account) ?? [],
        "last_click",
      );
      // Each clicker converts once, so the campaigns' converted clickers sum to the distinct ones,
      // in a world where crediting every campaign a phone clicked would sum to more.
      const perCampaign = [...credit.perCampaign.values()];
      expect(perCampaign.reduce((s, c) => s + c.converted, 0)).toBe(credit.convertedPhones);
      expect(credit.pairs, account).toBeGreaterThan(credit.convertedPhones);
      const clicks = groupBy(
        truth.clicks.get(account) ?? [],
        (c) => String(c.utm_campaign),
        (g) => {
          const daily = groupBy(
            g,
            (c) => String(c.created_at).slice(0, 10),
            (d) => new Set(d.map((c) => digits(c.phone))).size,
          );
          const unique = new Set(g.map((c) => digits(c.phone))).size;
          if ([...daily.values()].reduce((s, n) => s + n, 0) > unique) summedDailyExceedsLife = true;
          return { clicks: g.length, unique };
        },
      );
      for (const campaign of new Set([...messages.keys(), ...clicks.keys()])) {
        expected.push({
          account,
          campaign,
          messages_sent: messages.get(campaign)?.sent ?? 0,
          messages_delivered: messages.get(campaign)?.delivered ?? 0,
          clicks: clicks.get(campaign)?.clicks ?? 0,
          unique_clickers: clicks.get(campaign)?.unique ?? 0,
          converted_clickers: credit.perCampaign.get(campaign)?.converted ?? 0,
          callbacks: credit.perCampaign.get(campaign)?.callbacks ?? 0,
        });
      }
    }
    expected.sort((a, b) => (`${a.account}|${a.campaign}` < `${b.account}|${b.campaign}` ? -1 : 1));
    expect(expected.length).toBeGreaterThan(2);
    // The world must be one where summing daily uniques would be wrong, or the check proves nothing.
    expect(summedDailyExceedsLife).toBe(true);
    expect(expected.some((e) => Number(e.converted_clickers) > 0)).toBe(true);
    expect(mart.rows).toEqual(expected);

    const daily = await sql<{ n: number }>`
      SELECT sum(unique_clickers)::int AS n FROM analytics_marts.rpt_campaign_daily`.execute(
      database.warehouse.db,
    );
    const life = expected.reduce((s, e) => s + Number(e.unique_clickers), 0);
    expect(daily.rows[0]!.n).toBeGreaterThan(life);
    // Converted clickers and callbacks are credited once: the days add up to the whole lives.
    const credited = await sql<{ converted: number; callbacks: number }>`
      SELECT sum(converted_clickers)::int AS converted, sum(callbacks)::int AS callbacks
      FROM analytics_marts.rpt_campaign_daily`.execute(database.warehouse.db);
    expect(credited.rows[0]).toEqual({
      converted: expected.reduce((s, e) => s + Number(e.converted_clickers), 0),
      callbacks: expected.reduce((s, e) => s + Number(e.callbacks), 0),
    });
    expect(await martCallbacks(database)).toEqual(expectedCallbacks(truth, "last_click"));
  });

  it("invoices: exactly the seeded discrepancies are flagged, each off by its exact delta", async ({
    built,
    truth,
    sandbox,
    database,
  }) => {
    expect(built).toBe(true);
    const world = (await (await fetch(`${sandbox.url}/_sandbox/world`)).json()) as {
      invoice_discrepancies: { invoice_id: number; delta: string; issued: boolean }[];
    };
    const deltas = new Map(
      world.invoice_discrepancies.filter((d) => d.issued).map((d) => [d.invoice_id, micros(d.delta)]),
    );
    const expected = truth.accounts
      .flatMap((account) =>
        (truth.invoices.get(account) ?? []).map((invoice) => {
          const delta = deltas.get(Number(invoice.id)) ?? 0;
          return {
            account,
            invoice_id: Number(invoice.id),
            invoiced: micros(invoice.amount),
            variance: delta,
            within: delta === 0,
          };
        }),
      )
      .sort((a, b) => a.invoice_id - b.invoice_id);
    expect(expected.length).toBe(4);
    expect(expected.filter((e) => !e.within).length).toBeGreaterThan(0);
    expect(expected.filter((e) => e.within).length).toBeGreaterThan(0);

    // Usage per product, and what the billing ledger charged for it, each equal the sandbox's own
    // breakdown of the month's charges (the ledger bills exactly the usage it serves).
    const products = await sql<{
      account: string;
      month: string;
      product: string;
      usage_usd: string;
      ledger_usd: string;
      usage_without_ledger_usd: string;
    }>`
      SELECT account, to_char(period_start_date, 'YYYY-MM') AS month, product, usage_usd::text,
             ledger_usd::text, usage_without_ledger_usd::text
      FROM analytics_marts.fct_invoices_reconciled WHERE is_usage_product
      ORDER BY account, month, product`.execute(database.warehouse.db);
    expect(products.rows.length).toBe(4 * 6);
    const breakdowns = new Map<string, Json>();
    for (const row of products.rows) {
      const key = `${row.account}|${row.month}`;
      if (!breakdowns.has(key)) {
        const url = `${sandbox.url}/_sandbox/charges?account=${row.account}&month=${row.month}`;
        breakdowns.set(key, (await (await fetch(url)).json()) as Json);
      }
    }
    expect(products.rows.map((r) => [r.account, r.month, r.product, micros(r.usage_usd)])).toEqual(
      products.rows.map((r) => [
        r.account,
        r.month,
        r.product,
        micros(breakdowns.get(`${r.account}|${r.month}`)![r.product]),
      ]),
    );
    expect(products.rows.map((r) => [r.account, r.month, r.product, micros(r.ledger_usd)])).toEqual(
      products.rows.map((r) => [
        r.account,
        r.month,
        r.product,
        micros(breakdowns.get(`${r.account}|${r.month}`)![r.product]),
      ]),
    );
    expect(products.rows.filter((r) => micros(r.usage_without_ledger_usd) !== 0)).toEqual([]);
    // The ledger's lines with no usage behind them (the truth's `product` is null), per invoice:
    // their charges and their credits apart (a credit never offsets an unexplained charge), the
    // top-ups (platform-facts.md payment type codes) never a difference, reverted lines apart.
    const PAYMENT_TYPES = new Set([19, 20, 25, 26]);
    const unexplained = await sql<{
      account: string;
      month: string;
      ledger_without_usage_usd: string;
      ledger_credits_usd: string;
      other_lines: string;
    }>`
      SELECT t.account, to_char(t.period_start_date, 'YYYY-MM') AS month,
             t.ledger_without_usage_usd::text, t.ledger_credits_usd::text,
             (SELECT sum(p.ledger_lines) FROM analytics_marts.fct_invoices_reconciled AS p
               WHERE p.account = t.account AND p.invoice_id = t.invoice_id
                 AND NOT p.is_usage_product AND NOT p.is_invoice_total)::text AS other_lines
      FROM analytics_marts.fct_invoices_reconciled AS t
      WHERE t.is_invoice_total ORDER BY 1, 2`.execute(database.warehouse.db);
    const expectedUnexplained = [];
    for (const row of unexplained.rows) {
      const from = `${row.month}-01`;
      const to = new Date(Date.UTC(Number(row.month.slice(0, 4)), Number(row.month.slice(5)), 0))
        .toISOString()
        .slice(0, 10);
      const lines = (await truthRecords(sandbox, "transactions", row.account, { from, to })).filter(
        (line) => line.product === null && line.status !== "Reverted",
      );
      const billed = lines.filter((line) => !PAYMENT_TYPES.has(Number(line.type)));
      const amounts = billed.map((line) => attoDollars(line.amount));
      expectedUnexplained.push({
        account: row.account,
        month: row.month,
        charges: -amounts.filter((a) => a < 0n).reduce((a, b) => a + b, 0n),
        credits: amounts.filter((a) => a > 0n).reduce((a, b) => a + b, 0n),
        lines: lines.length,
      });
    }
    expect(
      unexplained.rows.map((r) => ({
        account: r.account,
        month: r.month,
        charges: attoDollars(r.ledger_without_usage_usd),
        credits: attoDollars(r.ledger_credits_usd),
        lines: Number(r.other_lines ?? 0),
      })),
    ).toEqual(expectedUnexplained);
    // The seeded lines make each difference non-zero somewhere (the test would see a lost one).
    expect(expectedUnexplained.some((e) => e.charges > 0n && e.credits > 0n)).toBe(true);

    const mart = await sql<{
      account: string;
      invoice_id: string;
      invoiced_usd: string;
      variance_usd: string;
      is_within_tolerance: boolean;
      ledger_variance_usd: string;
      reverted_lines: number;
    }>`SELECT account, invoice_id::text, invoiced_usd::text, variance_usd::text, is_within_tolerance,
              ledger_variance_usd::text, reverted_lines
       FROM analytics_marts.fct_invoices_reconciled WHERE product = 'invoice_total'
       ORDER BY invoice_id`.execute(database.warehouse.db);
    // Three ways: the invoice is off the ledger by exactly the seeded delta too.
    expect(mart.rows.map((r) => [Number(r.invoice_id), micros(r.ledger_variance_usd)])).toEqual(
      expected.map((e) => [e.invoice_id, e.variance]),
    );
    expect(mart.rows.every((r) => r.reverted_lines > 0)).toBe(true);
    expect(
      mart.rows.map((r) => ({
        account: r.account,
        invoice_id: Number(r.invoice_id),
        invoiced: micros(r.invoiced_usd),
        variance: micros(r.variance_usd),
        within: r.is_within_tolerance,
      })),
    ).toEqual(expected);
  });

  it("validations: numbers validated, valid, reachable and their cost per account", async ({
    built,
    truth,
    database,
  }) => {
    expect(built).toBe(true);
    const mart = await sql<{ account: string; n: number; valid: number; reachable: number; cost: string }>`
      SELECT account, sum(numbers_validated)::int AS n, sum(valid_numbers)::int AS valid,
             sum(reachable_numbers)::int AS reachable, sum(cost_usd)::text AS cost
      FROM analytics_marts.rpt_number_validation_daily GROUP BY account ORDER BY account`.execute(
      database.warehouse.db,
    );
    const expected = truth.accounts.map((account) => {
      const items = (truth.validations.get(account) ?? []).flatMap((v) => v.items as Json[]);
      return {
        account,
        n: items.length,
        valid: items.filter((i) => i.valid === true).length,
        reachable: items.filter((i) => i.reachable === true).length,
        cost: items.reduce((s, i) => s + micros(i.charge), 0),
      };
    });
    expect(expected.every((e) => e.n > 0)).toBe(true);
    expect(mart.rows.map((r) => ({ ...r, cost: micros(r.cost) }))).toEqual(expected);
  });

  it("brand appeals: one row each, resolved when COMPLETE or COMPLETED", async ({
    built,
    truth,
    database,
  }) => {
    expect(built).toBe(true);
    const mart = await sql<{ account: string; appeals: number; resolved: number }>`
      SELECT account, count(*)::int AS appeals, count(*) FILTER (WHERE is_resolved)::int AS resolved
      FROM analytics_marts.fct_brand_appeals GROUP BY account ORDER BY account`.execute(
      database.warehouse.db,
    );
    const expected = truth.accounts
      .map((account) => {
        const appeals = truth.appeals.get(account) ?? [];
        return {
          account,
          appeals: appeals.length,
          resolved: appeals.filter((a) => a.status === "COMPLETE" || a.status === "COMPLETED").length,
        };
      })
      .filter((e) => e.appeals > 0);
    expect(mart.rows).toEqual(expected);
  });

  it("The data model's ten example queries run on the built marts", async ({ built, database }) => {
    expect(built).toBe(true);
    const queries = readmeExampleQueries();
    expect(queries).toHaveLength(10);
    const failures: string[] = [];
    let answered = 0;
    for (const [index, query] of queries.entries()) {
      try {
        if ((await sql.raw(query).execute(database.warehouse.db)).rows.length > 0) answered += 1;
      } catch (error) {
        failures.push(`question ${index + 1}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    // Not every question has an answer in this small world (no missing charges, say), most do.
    expect(answered).toBeGreaterThanOrEqual(5);
  });

  it("var callback_attribution first_click: the marts give the truth's first-click figures", {
    timeout: 300_000,
  }, async ({ built, truth, database }) => {
    expect(built).toBe(true);
    const firstClick = expectedCallbacks(truth, "first_click");
    // The world is one where the rule matters, or the check proves nothing.
    expect(firstClick).not.toEqual(
      expectedCallbacks(truth, "last_click").map((l) => l.replace("last_click", "first_click")),
    );
    const workDir = await mkdtemp(path.join(tmpdir(), "marts-first-click-"));
    try {
      const dbt = await runDbt({
        databaseUrl: database.url,
        log: pino({ level: "silent" }),
        workDir,
        args: [
          "build",
          "--select",
          "fct_link_clicks+",
          "--full-refresh",
          "--vars",
          "{callback_attribution: first_click}",
          "--indirect-selection",
          "cautious",
          ...WITHOUT_UNIT_TESTS,
        ],
      });
      expect(dbt.ok, dbt.tail.join("\n")).toBe(true);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
    expect(await martCallbacks(database)).toEqual(firstClick);
  });
});
