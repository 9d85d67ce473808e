import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { AccountConfig } from "../../src/config/config.js";
import { RetryableError } from "../../src/core/errors.js";
import { Secret } from "../../src/core/secret.js";
import { createKeyBudgets, groupAccountsByKey } from "../../src/pipeline/clients/key-budgets.js";

const KEY = "sk_live_shared_0123456789";

function account(name: string, apiKeyEnv: string, key: string, rate: Partial<AccountConfig["rate"]> = {}) {
  return {
    name,
    baseUrl: "http://127.0.0.1:1",
    apiKeyEnv,
    apiKey: new Secret(key),
    rate: { requestsPerSecond: 10, burst: 20, concurrency: 4, ...rate },
    streams: ["cdrs"],
  } satisfies AccountConfig;
}

describe("one rate budget per API key", () => {
  it("accounts whose env vars hold the same key share one budget; another key gets its own", () => {
    const groups = groupAccountsByKey([
      account("acme", "ACME_KEY", KEY),
      account("other", "OTHER_KEY", "sk_live_other_9876543210"),
      account("acme-eu", "ACME_EU_KEY", KEY),
    ]);
    expect(groups.map((g) => g.accounts)).toEqual([["acme", "acme-eu"], ["other"]]);
    expect(groups.every((g) => !g.mixedRates)).toBe(true);
  });

  it("accounts naming the same env var share it too (same value)", () => {
    const groups = groupAccountsByKey([account("a", "KEY", KEY), account("b", "KEY", KEY)]);
    expect(groups.map((g) => g.accounts)).toEqual([["a", "b"]]);
  });

  it("different rate settings on one key: the lowest of each, and a warning without the key or its digest", () => {
    const lines: string[] = [];
    const log = pino(
      { level: "debug" },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const budgets = createKeyBudgets(
      [
        account("acme", "ACME_KEY", KEY, { requestsPerSecond: 20, burst: 5, concurrency: 8 }),
        account("acme-eu", "ACME_EU_KEY", KEY, { requestsPerSecond: 4, burst: 10, concurrency: 2 }),
      ],
      { clock: { now: () => 0 }, sleep: async () => {}, log },
    );
    expect(budgets).toHaveLength(1);
    expect(budgets[0]).toMatchObject({
      accounts: ["acme", "acme-eu"],
      rate: { requestsPerSecond: 4, burst: 5, concurrency: 2 },
      mixedRates: true,
    });
    expect(budgets[0]!.budget.concurrency).toBe(2);
    expect(budgets[0]!.budget.stats().maxRate).toBe(4);
    const warnings = lines.filter((line) => line.includes("different rate settings"));
    expect(warnings).toHaveLength(1);
    const digest = createHash("sha256").update(KEY).digest("hex");
    for (const line of lines) {
      expect(line).not.toContain(KEY);
      expect(line).not.toContain(digest);
    }
  });
});

describe("the floor of the adaptive rate", () => {
  it("is a tenth of the maximum unless configured, and 429s never push a budget below it", async () => {
    const [defaulted, configured] = groupAccountsByKey([
      account("a", "A_KEY", "sk_a_0123456789"),
      account("b", "B_KEY", "sk_b_0123456789", { minRequestsPerSecond: 4 }),
    ]);
    expect(defaulted?.rate.minRequestsPerSecond).toBe(1);
    expect(configured?.rate.minRequestsPerSecond).toBe(4);
    const clock = { now: () => 0 };
    const [budget] = createKeyBudgets(
      [account("c", "C_KEY", "sk_c_0123456789", { minRequestsPerSecond: 3 })],
      {
        clock,
        sleep: async () => {},
        log: pino({ level: "silent" }),
      },
    );
    const throttled = new RetryableError("429 Too Many Requests", { status: 429 });
    for (let i = 0; i < 60; i++) {
      await budget!.budget.schedule(async () => Promise.reject(throttled)).catch(() => undefined);
    }
    expect(budget!.budget.currentRate).toBe(3);
  });
});
