import { parseJsonExact } from "@telecom-etl/platform/exact-number.js";
import { TRANSACTION_EXACT_NUMBERS } from "@telecom-etl/platform/transaction.js";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import { pino } from "pino";
import { formatReject } from "../../src/cli/rejects-command.js";
import type { AccountConfig, EtlConfig } from "../../src/config/config.js";
import { replayRejects } from "../../src/pipeline/run/replay-rejects.js";
import { listRejects } from "../../src/warehouse/state/rejects.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { startFaultProxy } from "./fault-proxy.js";
import { runAt, sandboxConfig, setSandboxClock, truthRecords } from "./pipeline-harness.js";

/**
 * Issue 14 §3, the billing ledger: the master reads its own ledger and each configured
 * sub-account's (with its own key), and `platform.transactions` equals the sandbox's truth with
 * every amount exact: compared as the text of the landed `numeric` (and `bigint` id) against the
 * truth's decimal text, so a binary float anywhere on the way (`-1.50` → `-1.5`, 17 significant
 * digits, an id above 2^53) would show. Both API revisions, no faults and hostile ones. Bad input:
 * an unknown type code is kept, a null or string amount is a reject with a one-line reason.
 */
const START = "2026-08-01";

/** The master with its sub-accounts configured: transactions (the ledgers) and invoices (read by the fan-out too). */
function ledgerConfig(sandbox: RunningSandbox, overrides: Partial<EtlConfig> = {}): EtlConfig {
  const base = sandboxConfig(sandbox, { accountNames: ["master"], ...overrides });
  const subs = sandbox.world.accounts.filter((a) => a.role === "sub");
  return {
    ...base,
    accounts: base.accounts.map(
      (a): AccountConfig => ({
        ...a,
        streams: ["transactions", "invoices"],
        sources: {
          subAccounts: subs.map((s) => s.id),
          brandIds: undefined,
          validationTokens: [],
          numberCatalog: { countries: [], textEnabledOnly: false },
        },
      }),
    ),
  };
}

/** One ledger line as comparable text, from the truth (the sandbox's own decimal text). */
function fromTruth(record: Record<string, unknown>, ledger: string, subId: number | null): string {
  return JSON.stringify([
    ledger,
    subId === null ? null : String(subId),
    record.id,
    Date.parse(String(record.date)),
    record.amount,
    record.balance_after,
    record.details,
    record.status,
    record.type,
    record.show_invoice,
  ]);
}

/** The landed lines of `account`'s table, the exact numbers as PostgreSQL prints them. */
async function landed(db: TestDatabase, account: string): Promise<string[]> {
  const result = await sql<Record<string, unknown>>`
    SELECT ledger_account, sub_organization_id::text AS sub_id, id::text AS id, date,
           amount::text AS amount, balance_after::text AS balance_after, details, status, type, show_invoice
    FROM platform.transactions WHERE _account = ${account}`.execute(db.warehouse.db);
  return result.rows
    .map((r) =>
      JSON.stringify([
        r.ledger_account,
        r.sub_id,
        r.id,
        (r.date as Date).getTime(),
        r.amount,
        r.balance_after,
        r.details,
        r.status,
        r.type,
        r.show_invoice,
      ]),
    )
    .sort();
}

/**
 * Every landed line, whatever account it landed under, each checked to be under the account whose
 * ledger it is (a sub-account's under its fan-out name, read with the master's key).
 */
async function landedLedgers(db: TestDatabase): Promise<string[]> {
  const accounts = await sql<{ account: string; ledger: string }>`
    SELECT DISTINCT _account AS account, ledger_account AS ledger FROM platform.transactions`.execute(
    db.warehouse.db,
  );
  expect(accounts.rows.filter((r) => r.account !== r.ledger)).toEqual([]);
  const rows: string[] = [];
  for (const { account } of accounts.rows) rows.push(...(await landed(db, account)));
  return rows.sort();
}

/** What the warehouse must hold: the master's own ledger and each sub-account's, from the truth. */
async function expected(sandbox: RunningSandbox, today: string): Promise<string[]> {
  const rows: string[] = [];
  for (const account of sandbox.world.accounts) {
    const records = await truthRecords(sandbox, "transactions", account.name, { from: START, to: today });
    const sub = account.role === "sub";
    for (const r of records)
      rows.push(fromTruth(r, sub ? `master-sub-${account.id}` : "master", sub ? account.id : null));
  }
  return rows.sort();
}

describe("transactions: the billing ledger", () => {
  it.for([
    { revision: "2024" as const, faults: "none" as const },
    { revision: "2026" as const, faults: "none" as const },
    { revision: "2024" as const, faults: "hostile" as const },
  ])(
    "API revision $revision, faults $faults: master and sub-account ledgers equal the truth, every amount exact",
    async ({ revision, faults }, { launchSandbox, createDatabase }) => {
      const sandbox = await launchSandbox({
        seed: 73,
        start: START,
        days: 4,
        accounts: 2,
        callsPerDay: 60,
        apiRevision: revision,
        now: "2026-08-05T06:00:00Z",
        ...(faults === "none"
          ? {}
          : { faults: { base: "hostile", hangMs: 2_500, latencySpikeMs: 200, retryAfterSeconds: 1 } }),
      });
      const db = await createDatabase();
      const config = ledgerConfig(
        sandbox,
        faults === "none" ? {} : { timeouts: { connectMs: 2_000, headersMs: 1_000, totalMs: 1_000 } },
      );
      const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
      const failed = result.streams.filter((s) => s.status !== "succeeded");
      expect(result.exitCode, JSON.stringify(failed.map((s) => [s.account, s.stream, s.errors]))).toBe(0);
      // The fan-out's sub-account reads its invoices with its own key and its ledger with the master's.
      const sub = sandbox.world.accounts[1]!;
      expect(result.streams.map((s) => `${s.account}/${s.stream}`).sort()).toEqual(
        [
          "master/invoices",
          "master/transactions",
          `master-sub-${sub.id}/invoices`,
          `master-sub-${sub.id}/transactions`,
        ].sort(),
      );
      const rows = await landedLedgers(db);
      expect(rows).toEqual(await expected(sandbox, result.today));
      expect((await landed(db, `master-sub-${sub.id}`)).length).toBeGreaterThan(0);
      // Not vacuous: both ledgers, the exact edge values and the int64 id are there, as text.
      const text = rows.join("\n");
      for (const edge of [
        '"-0.1"',
        '"309.0601"',
        '"0.0000001"',
        '"-12.345678901234567"',
        '"9007199254740993"',
      ])
        expect(text).toContain(edge);
      expect(text).toContain(`"master-sub-${sub.id}","${sub.id}"`);
      expect(text).toMatch(/"-\d+\.\d0",/); // a trailing zero a float would drop
      expect(text).toContain('"Reverted"');
      const again = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(again.exitCode).toBe(0);
      expect(await landedLedgers(db)).toEqual(rows);
    },
  );

  it("settles like CDRs: lines listed Pending, and lines that appear late, are read again until they settle", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 75,
      start: START,
      days: 3,
      accounts: 2,
      callsPerDay: 60,
      now: "2026-08-03T12:00:00Z",
    });
    const db = await createDatabase();
    const config = ledgerConfig(sandbox);
    const first = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(first.exitCode).toBe(0);
    expect(await landedLedgers(db)).toEqual(await expected(sandbox, first.today));
    const pending = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM platform.transactions WHERE status = 'Pending'`.execute(db.warehouse.db);
    expect(pending.rows[0]?.n).toBeGreaterThan(0);
    await setSandboxClock(sandbox, "2026-08-06T12:00:00Z");
    const later = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(later.exitCode).toBe(0);
    const rows = await landedLedgers(db);
    expect(rows).toEqual(await expected(sandbox, later.today));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.join("\n")).not.toContain('"Pending"');
  });

  it("a sub-account added to the config later reads its whole ledger from start_date, under its own name", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 76,
      start: START,
      days: 8,
      accounts: 2,
      callsPerDay: 40,
      now: "2026-08-09T06:00:00Z",
    });
    const db = await createDatabase();
    const sub = sandbox.world.accounts[1]!;
    const withSubs = ledgerConfig(sandbox);
    const masterAlone: EtlConfig = {
      ...withSubs,
      accounts: withSubs.accounts.map((a) => ({ ...a, sources: { ...a.sources!, subAccounts: [] } })),
    };
    // The master alone first: its windows of the first days settle (read more than 72 h after their end).
    const first = await runAt(db.warehouse, masterAlone, sandbox, { command: "run" });
    expect(first.exitCode).toBe(0);
    expect(await landed(db, `master-sub-${sub.id}`)).toEqual([]);
    // Then the sub-account is configured: its ledger loads from START, settled days of the master included.
    const later = await runAt(db.warehouse, withSubs, sandbox, { command: "run" });
    expect(later.exitCode).toBe(0);
    const subLines = await landed(db, `master-sub-${sub.id}`);
    const truth = await truthRecords(sandbox, "transactions", sub.name, { from: START, to: later.today });
    expect(subLines).toEqual(truth.map((r) => fromTruth(r, `master-sub-${sub.id}`, sub.id)).sort());
    expect(truth.some((r) => String(r.date) < "2026-08-03")).toBe(true);
  });

  it("a disabled sub-account (its own key refused) still has its ledger read, with the master's key", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 77,
      start: START,
      days: 3,
      accounts: 2,
      callsPerDay: 40,
      now: "2026-08-04T06:00:00Z",
    });
    const db = await createDatabase();
    const [master, sub] = sandbox.world.accounts;
    const disabled = await fetch(`${sandbox.url}/v1/sub-organizations/${sub!.id}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${master!.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: sub!.companyName, status: "disabled" }),
    });
    expect(disabled.status).toBe(200);
    const result = await runAt(db.warehouse, ledgerConfig(sandbox), sandbox, { command: "run" });
    // Its invoices need its own key, which a disabled sub-account does not get: that stream fails, in one line.
    const subInvoices = result.streams.find(
      (s) => s.stream === "invoices" && s.account === `master-sub-${sub!.id}`,
    );
    expect(subInvoices?.errors.join(" ")).toMatch(/is disabled/);
    const ledger = result.streams.find(
      (s) => s.stream === "transactions" && s.account === `master-sub-${sub!.id}`,
    );
    expect(ledger?.status).toBe("succeeded");
    const truth = await truthRecords(sandbox, "transactions", sub!.name, { from: START, to: result.today });
    expect(truth.length).toBeGreaterThan(0);
    expect(await landed(db, `master-sub-${sub!.id}`)).toEqual(
      truth.map((r) => fromTruth(r, `master-sub-${sub!.id}`, sub!.id)).sort(),
    );
  });

  it("keeps an unknown type code, rejects a null or string amount with a one-line reason, the raw row exact", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 74,
      start: START,
      days: 2,
      accounts: 1,
      callsPerDay: 20,
      now: "2026-08-03T06:00:00Z",
    });
    const line = (id: number, amount: string) =>
      `{"id":${id},"date":"2026-08-01T10:00:00Z","amount":${amount},"balance_after":-0.10,"details":"Odd line","status":"Committed","type":777,"show_invoice":false}`;
    const body = `{"is_empty":false,"transactions":[${line(1, "-2.50")},${line(2, '"1.50"')},${line(3, "null")}],"pagination":{"current_page":1,"per_page":100,"total":3,"total_pages":1}}`;
    const proxy = await startFaultProxy(sandbox.url, (url) =>
      url.pathname === "/v1/billing/transactions" && url.searchParams.get("from_date") === START
        ? // Parsed keeping the numbers' text, so the proxy writes them back as they are here.
          { status: 200, body: parseJsonExact(body, TRANSACTION_EXACT_NUMBERS) }
        : undefined,
    );
    try {
      const db = await createDatabase();
      const base = sandboxConfig(sandbox, { baseUrl: proxy.url, maxRejectShare: 1 });
      const config: EtlConfig = {
        ...base,
        accounts: base.accounts.map((a) => ({ ...a, streams: ["transactions"] })),
      };
      const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect([0, 3]).toContain(result.exitCode);
      const kept = await sql<{ id: string; type: number; amount: string; balance_after: string }>`
        SELECT id::text AS id, type, amount::text AS amount, balance_after::text AS balance_after
        FROM platform.transactions WHERE date < '2026-08-02'`.execute(db.warehouse.db);
      expect(kept.rows).toEqual([{ id: "1", type: 777, amount: "-2.50", balance_after: "-0.10" }]);
      const rejects = await listRejects(db.warehouse.db, { stream: "transactions", limit: 10 });
      expect(
        rejects
          .map((r) => [
            (r.raw as { id: number }).id,
            (r.issues as { path: string; message: string }[]).map((i) => `${i.path}: ${i.message}`),
          ])
          .sort(),
      ).toEqual([
        [2, ["amount: expected a JSON number, got a string"]],
        [3, ["amount: expected a JSON number, got null"]],
      ]);
      // The stored raw row keeps the number's digits (jsonb numbers are numeric).
      const raw = await sql<{ balance: string; amount: string | null }>`
        SELECT raw ->> 'balance_after' AS balance, raw ->> 'amount' AS amount
        FROM etl.rejects WHERE stream = 'transactions' ORDER BY raw ->> 'id'`.execute(db.warehouse.db);
      expect(raw.rows).toEqual([
        { balance: "-0.10", amount: "1.50" },
        { balance: "-0.10", amount: null },
      ]);
      // `rejects list` prints that text, not a float's reading of it (which would say -0.1).
      for (const reject of rejects) expect(formatReject(reject)).toContain('"balance_after": -0.10');
      // A reject an older schema made of a line valid today replays exactly: its numbers are read
      // from the stored jsonb text (17 significant digits, a trailing zero), never through a float.
      await sql`
        INSERT INTO etl.rejects (run_id, account, stream, slice, raw, issues, implied)
        VALUES (NULL, 'master', 'transactions', '2026-08-01..2026-08-02',
          '{"id": 42, "date": "2026-08-01T11:00:00Z", "amount": -0.10, "balance_after": 12.345678901234567,
            "details": "Replayed", "status": "Committed", "type": 14, "show_invoice": true}'::jsonb,
          '[{"path": "type", "code": "custom", "message": "old schema"}]'::jsonb,
          '{"ledger_account": "master"}'::jsonb)`.execute(db.warehouse.db);
      const replay = await replayRejects(
        { warehouse: db.warehouse, log: pino({ level: "silent" }), host: "test" },
        { stream: "transactions" },
      );
      expect(replay.summaries).toEqual([
        { account: "master", stream: "transactions", pending: 3, loaded: 1, stillRejected: 2 },
      ]);
      const replayed = await sql<{ amount: string; balance_after: string; ledger_account: string }>`
        SELECT amount::text AS amount, balance_after::text AS balance_after, ledger_account
        FROM platform.transactions WHERE id = 42`.execute(db.warehouse.db);
      expect(replayed.rows).toEqual([
        { amount: "-0.10", balance_after: "12.345678901234567", ledger_account: "master" },
      ]);
      // The other day is the sandbox's own ledger, loaded as usual.
      const otherDay = await truthRecords(sandbox, "transactions", "master", {
        from: "2026-08-02",
        to: result.today,
      });
      const landedOther = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM platform.transactions WHERE date >= '2026-08-02'`.execute(
        db.warehouse.db,
      );
      expect(landedOther.rows[0]?.n).toBe(otherDay.length);
      expect(otherDay.length).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });
});
