import { UsageError } from "../../core/errors.js";

/**
 * What an operator confirmed on the command line for this run: `--accept-shrink` (the platform
 * really deleted rows) and `--accept-drift` (load a drifted read as it is), each a list of
 * `ACCOUNT/STREAM` (every window of that stream of that account) or `ACCOUNT/STREAM/YYYY-MM-DD`
 * (the window starting that day).
 */
export interface AcceptedHolds {
  readonly shrink: readonly AcceptSpec[];
  readonly drift: readonly AcceptSpec[];
}

/** One confirmation: an account's stream, all its windows (`windowStart` null) or one. */
export interface AcceptSpec {
  readonly account: string;
  readonly stream: string;
  readonly windowStart: string | null;
}

/** No confirmation at all. */
export const NOTHING_ACCEPTED: AcceptedHolds = { shrink: [], drift: [] };

/** Parses `ACCOUNT/STREAM[/YYYY-MM-DD]` given to `flag`; a malformed one is a UsageError saying the form. */
export function parseAcceptSpec(flag: string, text: string): AcceptSpec {
  const match = /^([^/\s]+)\/([a-z_]+)(?:\/(\d{4}-\d{2}-\d{2}))?$/.exec(text.trim());
  if (!match) {
    throw new UsageError(
      `${flag} ${JSON.stringify(text)}: expected ACCOUNT/STREAM or ACCOUNT/STREAM/YYYY-MM-DD (the first day of the window), e.g. ${flag} northwind/short_link_metrics/2026-08-01`,
    );
  }
  return { account: match[1]!, stream: match[2]!, windowStart: match[3] ?? null };
}

/**
 * Checks every confirmation names a configured account and a known stream: a typo would otherwise
 * confirm nothing and the hold would stay. A UsageError names the value and what is known.
 */
export function checkAcceptedHolds(
  accepted: AcceptedHolds,
  accounts: readonly string[],
  streams: readonly string[],
): void {
  for (const [flag, specs] of [
    ["--accept-shrink", accepted.shrink],
    ["--accept-drift", accepted.drift],
  ] as const) {
    for (const spec of specs) {
      if (!accounts.includes(spec.account))
        throw new UsageError(
          `${flag}: no account ${JSON.stringify(spec.account)}; configured: ${accounts.join(", ")}`,
        );
      if (!streams.includes(spec.stream))
        throw new UsageError(
          `${flag}: no stream ${JSON.stringify(spec.stream)}; known: ${streams.join(", ")}`,
        );
    }
  }
}

/** Whether `specs` confirm the read of (account, stream) whose window starts on `windowStart` (null: a whole list). */
export function isAccepted(
  specs: readonly AcceptSpec[],
  read: { readonly account: string; readonly stream: string; readonly windowStart: string | null },
): boolean {
  return specs.some(
    (spec) =>
      spec.account === read.account &&
      spec.stream === read.stream &&
      (spec.windowStart === null || spec.windowStart === read.windowStart),
  );
}
