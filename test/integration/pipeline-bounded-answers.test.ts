import zlib from "node:zlib";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import type { EtlConfig } from "../../src/config/config.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { type FaultRule, startFaultProxy } from "./fault-proxy.js";
import { completedLabels, loadedRows, runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";
import { expectedFromTruth } from "./truth-oracle.js";

/**
 * Issue 32, items 7, 3(a) and 8: answers that lie in ways their own numbers cannot show, or that
 * are far larger than they look.
 * - 7: an inflated `total_pages` (10 million) used to be trusted: the loader built one pending
 *   request per reported page after page 1 (heap exhausted, exit 134); 100,000 pages meant hours
 *   of empty pages. Pages are now asked for lazily, the first empty page ends the list, and a
 *   `total_pages` that contradicts `total` is a damaged answer.
 * - 3(a): `total = per_page` with an empty page 2 looks exactly like a list of one full page (53
 *   CDRs settled short, exit 0). Such a list is now asked again with another `per_page`, and a
 *   total that follows the page size fails the window instead of settling it.
 * - 8: a gzip bomb passed the 64 MiB cap, checked on the wire (409 KB became 400 MB, accepted).
 *   The cap now applies to the decoded bytes as they stream; the page fails at once, not retried.
 * All through a real HTTP proxy in front of the sandbox, compared with the sandbox's truth.
 */
const START = "2026-08-01";
const SANDBOX = {
  seed: 32,
  start: START,
  days: 4,
  accounts: 1,
  callsPerDay: 300,
  now: "2026-08-06T06:00:00Z",
} as const;

interface ListAnswer {
  readonly items: unknown[];
  readonly pagination: { total: number; total_pages: number; per_page: number; current_page: number };
}

function isPlacedCdrList(url: URL): boolean {
  return (
    (url.pathname === "/v1/cdr" || url.pathname === "/v1/cdrs") && url.searchParams.get("type") === "placed"
  );
}

/** The CDR truth of `account` from START to `today`, without the days in `except`. */
async function truthWithout(
  sandbox: RunningSandbox,
  account: string,
  today: string,
  except: readonly string[],
): Promise<string[]> {
  const records = await truthRecords(sandbox, "cdrs", account, { from: START, to: today });
  return expectedFromTruth(
    "cdrs",
    records.filter((r) => !except.includes(String(r.date).slice(0, 10))),
  );
}

function cdrsOnly(sandbox: RunningSandbox, baseUrl: string): EtlConfig {
  const base = sandboxConfig(sandbox, { baseUrl });
  return { ...base, accounts: base.accounts.map((a) => ({ ...a, streams: ["cdrs"] })) };
}

/** The next run, once the platform answers right: exit 0 and every CDR equal to the truth. */
async function expectHealed(warehouse: Warehouse, config: EtlConfig, sandbox: RunningSandbox): Promise<void> {
  const run = await runAt(warehouse, config, sandbox, { command: "run" });
  expect(run.exitCode, run.streams[0]!.errors.join("\n")).toBe(0);
  expect(await loadedRows(warehouse, "cdrs", config.accounts[0]!.name)).toEqual(
    await truthWithout(sandbox, config.accounts[0]!.name, run.today, []),
  );
}

describe("an inflated total_pages (item 7)", () => {
  it("10 million pages: a few requests, the window fails cleanly, the others equal the truth; healed, everything does", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox(SANDBOX);
    // Day 2: total and total_pages inflated together (consistent); day 1: total_pages alone (contradicts total).
    // Both days settle at the sandbox's clock (read 72 h after their end).
    const INFLATED = "2026-08-02";
    const CONTRADICTED = "2026-08-01";
    const lying = { on: true };
    const requests = new Map<string, number>();
    const rule: FaultRule = (url) => {
      if (!isPlacedCdrList(url)) return undefined;
      const day = url.searchParams.get("from") ?? "";
      requests.set(day, (requests.get(day) ?? 0) + 1);
      if (!lying.on || (day !== INFLATED && day !== CONTRADICTED)) return undefined;
      return {
        rewrite: (body) => {
          const answer = body as ListAnswer;
          const total = day === INFLATED ? 1_000_000_000 : answer.pagination.total;
          return { ...answer, pagination: { ...answer.pagination, total, total_pages: 10_000_000 } };
        },
      };
    };
    const proxy = await startFaultProxy(sandbox.url, rule);
    try {
      const db = await createDatabase();
      const config = cdrsOnly(sandbox, proxy.url);
      const account = config.accounts[0]!.name;
      const heapBefore = process.memoryUsage().heapUsed;
      const started = Date.now();
      const first = await runAt(db.warehouse, config, sandbox, { command: "run" });
      const elapsedMs = Date.now() - started;
      expect(first.exitCode).toBe(1);
      // Bounded in time, requests and memory (before: one pending request per reported page).
      expect(elapsedMs).toBeLessThan(60_000);
      // 4 reads, each: the pages up to the first empty one and those already in flight (concurrency
      // 4), then those of them that look short fetched again (2 rounds): 64 here.
      expect(requests.get(INFLATED)).toBeLessThanOrEqual(100);
      expect(requests.get(CONTRADICTED)).toBeLessThanOrEqual(8);
      expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(512 * 1024 * 1024);

      const cdrs = first.streams[0]!;
      expect(cdrs.windowsFailed).toBe(2);
      const errors = cdrs.errors.join("\n");
      expect(errors).toMatch(
        new RegExp(
          `${INFLATED}\\.\\.2026-08-03: .*type=placed.*completeness check failed after 4 reads: fetched \\d+ distinct rows but the platform reported total 1000000000`,
        ),
      );
      expect(errors).toMatch(
        new RegExp(
          `${CONTRADICTED}\\.\\.2026-08-02: .*inconsistent pagination: 10000000 pages reported for \\d+ rows of 100 per page`,
        ),
      );
      const completed = await completedLabels(db.warehouse, account, "cdrs");
      expect(completed).not.toContain(`${INFLATED}..2026-08-03`);
      expect(completed).not.toContain(`${CONTRADICTED}..2026-08-02`);
      expect(await loadedRows(db.warehouse, "cdrs", account)).toEqual(
        await truthWithout(sandbox, account, first.today, [INFLATED, CONTRADICTED]),
      );

      // The platform answers right again: the next run loads both windows and settles them.
      lying.on = false;
      await expectHealed(db.warehouse, config, sandbox);
      expect(await completedLabels(db.warehouse, account, "cdrs")).toEqual([
        `${CONTRADICTED}..2026-08-02`,
        `${INFLATED}..2026-08-03`,
      ]);
    } finally {
      await proxy.close();
    }
  });
});

describe("a list cut at a page boundary (item 3a)", () => {
  it("total = per_page with an empty page 2 is asked again with another per_page: not settled short; healed, it equals the truth", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox(SANDBOX);
    const CUT = "2026-08-02";
    const lying = { on: true };
    const trueTotals: number[] = [];
    const perPagesAsked = new Set<string>();
    // Whatever the page size, the day's placed CDRs are one full page, and page 2 is empty.
    const rule: FaultRule = (url) => {
      if (!isPlacedCdrList(url) || url.searchParams.get("from") !== CUT || !lying.on) return undefined;
      perPagesAsked.add(url.searchParams.get("per_page") ?? "");
      return {
        rewrite: (body) => {
          const answer = body as ListAnswer;
          if (url.searchParams.get("page") === "1") trueTotals.push(answer.pagination.total);
          const perPage = answer.pagination.per_page;
          const items = url.searchParams.get("page") === "1" ? answer.items : [];
          return { ...answer, items, pagination: { ...answer.pagination, total: perPage, total_pages: 1 } };
        },
      };
    };
    const proxy = await startFaultProxy(sandbox.url, rule);
    try {
      const db = await createDatabase();
      const config = cdrsOnly(sandbox, proxy.url);
      expect(config.perPage).toBe(100);
      const account = config.accounts[0]!.name;
      const first = await runAt(db.warehouse, config, sandbox, { command: "run" });
      // The lie was served on a day that really has more than one page of placed CDRs.
      expect(trueTotals.length).toBeGreaterThan(0);
      expect(trueTotals[0]).toBeGreaterThan(100);
      // Not settled short (before: exit 0, the window settled with its first 100 CDRs, never read again).
      expect(first.exitCode).toBe(1);
      expect(await completedLabels(db.warehouse, account, "cdrs")).not.toContain(`${CUT}..2026-08-03`);
      expect(perPagesAsked).toEqual(new Set(["100", "99"]));
      const cdrs = first.streams[0]!;
      expect(cdrs.windowsFailed).toBe(1);
      expect(cdrs.errors.join("\n")).toMatch(
        /2026-08-02\.\.2026-08-03: .*the list ended on a page boundary \(total 100, 100 distinct rows in 2 pages of 100, the last one empty\), but asked again with per_page 99 the platform reports total 99 and serves 99 distinct rows: its answers depend on the page size/,
      );
      expect(await loadedRows(db.warehouse, "cdrs", account)).toEqual(
        await truthWithout(sandbox, account, first.today, [CUT]),
      );

      // The platform recovers: the window was never settled, so the next run reads it whole.
      lying.on = false;
      await expectHealed(db.warehouse, config, sandbox);
      expect(await completedLabels(db.warehouse, account, "cdrs")).toContain(`${CUT}..2026-08-03`);
    } finally {
      await proxy.close();
    }
  });
});

describe("a gzip bomb (item 8)", () => {
  it("100 KB inflating to 100 MB: refused at the 64 MiB cap in one line, not retried; the other windows equal the truth", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox(SANDBOX);
    const BOMBED = "2026-08-02";
    const decoded = 100 * 1024 * 1024;
    const bomb = zlib.gzipSync(
      Buffer.concat([
        Buffer.from('{"items": [], "padding": "'),
        Buffer.alloc(decoded, "0"),
        Buffer.from('"}'),
      ]),
    );
    expect(bomb.length).toBeLessThan(200 * 1024);
    const bombing = { on: true };
    let served = 0;
    const rule: FaultRule = (url) => {
      if (!bombing.on || !isPlacedCdrList(url) || url.searchParams.get("from") !== BOMBED) return undefined;
      served++;
      return { status: 200, body: bomb, headers: { "content-encoding": "gzip" } };
    };
    const proxy = await startFaultProxy(sandbox.url, rule);
    try {
      const db = await createDatabase();
      const config = cdrsOnly(sandbox, proxy.url);
      const account = config.accounts[0]!.name;
      const first = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(first.exitCode).toBe(1);
      // A bomb is not transient: one request, no retry, no re-read of the window.
      expect(served).toBe(1);
      const cdrs = first.streams[0]!;
      expect(cdrs.windowsFailed).toBe(1);
      expect(cdrs.errors).toHaveLength(1);
      expect(cdrs.errors[0]).toMatch(
        /^2026-08-02\.\.2026-08-03: account .*, stream cdrs: GET .*type=placed.*: response body larger than 67108864 bytes once decompressed \(gzip\), \d+ bytes received; refused, not retried \(the cap is 67108864 bytes of decoded body; lower per_page if the platform's pages really are this large\)$/,
      );
      expect(await completedLabels(db.warehouse, account, "cdrs")).not.toContain(`${BOMBED}..2026-08-03`);
      expect(await loadedRows(db.warehouse, "cdrs", account)).toEqual(
        await truthWithout(sandbox, account, first.today, [BOMBED]),
      );

      bombing.on = false;
      await expectHealed(db.warehouse, config, sandbox);
    } finally {
      await proxy.close();
    }
  });
});
