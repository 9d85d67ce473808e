/**
 * When a window rejects too many of its rows, the platform has most likely changed its schema (a
 * renamed field, a new type): the read is held (nothing of the window changes, its rejects are
 * kept, it is re-read by every run until its rows pass again) and the run fails with one line that
 * says what was rejected and why. Pure, so the rule is tested without a database.
 *
 * The rule: a window is held when its rejected share exceeds `max_reject_share` by more than
 * chance, i.e. when a platform rejecting rows at exactly `max_reject_share` would produce this
 * many rejects (or more) in a window of this size with probability below {@link CHANCE}. A schema
 * change rejects every row and is held at once even in a window of two rows; a row corrupted now
 * and then in a small window (one of 40 is 2.5% > 1%) is a small quarantine (exit 3), not a page.
 */
import type { RejectedRow } from "../extract/parse-rows.js";

/** Below this probability, a reject count cannot be noise at the allowed reject share. */
export const CHANCE = 0.001;

/**
 * P(X >= rejected) for X ~ Binomial(total, share): how likely a platform rejecting each row with
 * probability `share` would reject at least `rejected` of `total` rows. Computed in log space.
 */
export function binomialTail(rejected: number, total: number, share: number): number {
  if (rejected <= 0) return 1;
  if (rejected > total) return 0;
  if (share <= 0) return 0;
  if (share >= 1) return 1;
  const logP = Math.log(share);
  const logQ = Math.log1p(-share);
  // log C(total, k) p^k q^(total-k), from k = rejected upwards, summed with log-sum-exp.
  let logTerm = logChoose(total, rejected) + rejected * logP + (total - rejected) * logQ;
  let max = logTerm;
  const terms = [logTerm];
  for (let k = rejected; k < total; k++) {
    logTerm += Math.log((total - k) / (k + 1)) + logP - logQ;
    terms.push(logTerm);
    if (logTerm > max) max = logTerm;
    if (logTerm < max - 50) break;
  }
  let sum = 0;
  for (const term of terms) sum += Math.exp(term - max);
  return Math.min(1, Math.exp(max + Math.log(sum)));
}

function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

function logFactorial(n: number): number {
  // Exact for small n, Stirling's series (error < 1e-10 from 30 on) beyond.
  if (n < 30) {
    let sum = 0;
    for (let i = 2; i <= n; i++) sum += Math.log(i);
    return sum;
  }
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + 1 / (12 * n) - 1 / (360 * n ** 3);
}

/** True when `rejected` of `total` rows is more than `maxShare` allows beyond chance (see the module comment). */
export function tooManyRejects(rejected: number, total: number, maxShare: number): boolean {
  if (rejected === 0 || total === 0) return false;
  if (rejected / total <= maxShare) return false;
  return binomialTail(rejected, total, maxShare) < CHANCE;
}

/** The issue most rejects share (`path: message` of their first issue) and how many share it. */
export function mostCommonIssue(rejects: readonly RejectedRow[]): { issue: string; count: number } | null {
  const counts = new Map<string, number>();
  for (const reject of rejects) {
    const first = reject.issues[0];
    const issue = first ? `${first.path || "(row)"}: ${first.message}` : "(no issue recorded)";
    counts.set(issue, (counts.get(issue) ?? 0) + 1);
  }
  let best: { issue: string; count: number } | null = null;
  for (const [issue, count] of counts) if (best === null || count > best.count) best = { issue, count };
  return best;
}

const number = new Intl.NumberFormat("en-US");

/**
 * The one line a held window fails the run with: `account master, stream cdrs, window
 * 2026-08-01..2026-08-02: 2,701 of 2,701 rows rejected (most: uuid: expected string, received
 * undefined) — has the platform changed its schema?`
 */
export function heldWindowMessage(input: {
  readonly account: string;
  readonly stream: string;
  readonly window: string;
  readonly rejected: number;
  readonly total: number;
  readonly maxShare: number;
  readonly rejects: readonly RejectedRow[];
}): string {
  const common = mostCommonIssue(input.rejects);
  const why = common ? `: ${common.issue}` : "";
  return (
    `account ${input.account}, stream ${input.stream}, window ${input.window}: ` +
    `${number.format(input.rejected)} of ${number.format(input.total)} rows rejected${why}` +
    ` — has the platform changed its schema? Held (more than max_reject_share ${input.maxShare} rejected): ` +
    "the window keeps what it held and is read again by every run; its rejects are in etl.rejects"
  );
}
