/**
 * One rate budget per API key, shared by every account whose key is that key, whichever env vars
 * hold it. Keys are told apart by their SHA-256 digest, kept in memory only: neither the key nor
 * its digest is ever logged or returned. Accounts sharing a key with different rate settings get
 * the most conservative of them, with a warning. With `sharedBuckets` (distributed workers), each
 * budget takes its tokens from its key's bucket in the warehouse, shared with the other processes.
 */
import { createHash } from "node:crypto";
import { createRateBudget, type RateBudget } from "../../api/rate-budget.js";
import type { SharedRateBuckets } from "../../api/shared-token-bucket.js";
import { type AccountConfig, DEFAULT_MIN_RATE_SHARE } from "../../config/config.js";
import type { Logger } from "../../core/log.js";
import type { Clock, Sleep } from "../../core/ports.js";

/** Rate settings of a budget (the shape of `AccountConfig.rate`). */
export type RateSettings = AccountConfig["rate"];

/** Accounts that share one API key, and the rate their shared budget runs at. */
export interface KeyGroup {
  readonly accounts: readonly string[];
  readonly rate: RateSettings;
  /** The accounts were configured with different rate settings; `rate` is the lowest of each. */
  readonly mixedRates: boolean;
}

/** A key group with its budget. */
export interface KeyBudget extends KeyGroup {
  readonly budget: RateBudget;
}

/** The floor of a budget's adaptive rate: configured, or a share of its maximum. */
function minRateOf(rate: RateSettings): number {
  return rate.minRequestsPerSecond ?? rate.requestsPerSecond * DEFAULT_MIN_RATE_SHARE;
}

/** Groups accounts by the value of their key (first-seen order), each group at its most conservative rate. */
export function groupAccountsByKey(accounts: readonly AccountConfig[]): KeyGroup[] {
  const groups = new Map<string, AccountConfig[]>();
  for (const account of accounts) {
    const digest = createHash("sha256").update(account.apiKey.reveal()).digest("hex");
    groups.set(digest, [...(groups.get(digest) ?? []), account]);
  }
  return [...groups.values()].map((members) => {
    const rates = members.map((m) => m.rate);
    const rate: RateSettings = {
      requestsPerSecond: Math.min(...rates.map((r) => r.requestsPerSecond)),
      burst: Math.min(...rates.map((r) => r.burst)),
      concurrency: Math.min(...rates.map((r) => r.concurrency)),
      minRequestsPerSecond: Math.min(...rates.map(minRateOf)),
    };
    const mixedRates = rates.some(
      (r) =>
        r.requestsPerSecond !== rate.requestsPerSecond ||
        r.burst !== rate.burst ||
        r.concurrency !== rate.concurrency,
    );
    return { accounts: members.map((m) => m.name), rate, mixedRates };
  });
}

/**
 * Creates the budget of every key the accounts use; warns where accounts sharing a key disagree on
 * rates. `sharedBuckets`: one token bucket per key shared with other processes; default in memory.
 */
export function createKeyBudgets(
  accounts: readonly AccountConfig[],
  deps: { clock: Clock; sleep: Sleep; log: Logger; sharedBuckets?: SharedRateBuckets | undefined },
): KeyBudget[] {
  return groupAccountsByKey(accounts).map((group) => {
    if (group.mixedRates) {
      deps.log.warn(
        { accounts: group.accounts, rate: group.rate },
        "accounts sharing one API key have different rate settings; their shared budget uses the lowest of each",
      );
    }
    const key = accounts.find((a) => a.name === group.accounts[0])!.apiKey.reveal();
    const sharedBucket = deps.sharedBuckets?.bucketFor(key, {
      maxRatePerSecond: group.rate.requestsPerSecond,
      burst: group.rate.burst,
    });
    const budget = createRateBudget({
      maxRatePerSecond: group.rate.requestsPerSecond,
      burst: group.rate.burst,
      concurrency: group.rate.concurrency,
      minRatePerSecond: minRateOf(group.rate),
      label: group.accounts.join(","),
      clock: deps.clock,
      sleep: deps.sleep,
      log: deps.log,
      sharedBucket,
    });
    return { ...group, budget };
  });
}
