import { API_REVISIONS, type ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { type FaultProfile, resolveFaultProfile } from "./faults/fault-profile.js";

/**
 * Options of the sandbox (library and CLI) and their defaults. Everything the world contains is a
 * pure function of these options; only the clock and the fault profile can change at run time.
 */

/** Names of the built-in fault profiles. */
export const FAULT_PROFILE_NAMES = ["none", "flaky", "hostile"] as const;
/** A built-in fault profile name. */
export type FaultProfileName = (typeof FAULT_PROFILE_NAMES)[number];

/** Options of {@link startSandbox}. All optional. */
export interface SandboxOptions {
  /** TCP port; 0 (default) picks a free one. */
  readonly port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** World seed (default 1). */
  readonly seed?: number;
  /** First day of the world, `YYYY-MM-DD` (default 2026-08-01; with `now: "real"`, today - days + 1). */
  readonly start?: string;
  /** Number of days with traffic (default 90). */
  readonly days?: number;
  /** Accounts: one master plus `accounts - 1` sub-accounts (default 3). */
  readonly accounts?: number;
  /** Mean calls per account per day (default 2000). */
  readonly callsPerDay?: number;
  /** Fault profile: `none` (default), `flaky`, `hostile`, a JSON file path, or a profile object. */
  readonly faults?: string | Readonly<Record<string, unknown>>;
  /** Added latency of every platform request, ms (default 0). */
  readonly latencyMs?: number;
  /** Token-bucket rate limit per API key, requests/s (default 0 = off). */
  readonly rateLimit?: number;
  /** Largest `per_page` honoured (default 100); larger values are capped. */
  readonly maxPerPage?: number;
  /** Sandbox clock: ISO date-time, epoch ms, or `real` (default: start + days at 00:00 UTC). */
  readonly now?: string | number;
  /** Share of CDRs visible only 1 h to 48 h after the call (default 0.02). */
  readonly lateShare?: number;
  /** Shuffle rows within each page, seeded by the request (default false). */
  readonly shuffle?: boolean;
  /** Most CDR rows kept in the generated-day cache (default 150,000). */
  readonly cacheRows?: number;
  /** API revision served: `2024` (default, platform-api.md) or `2026` (platform-facts.md). */
  readonly apiRevision?: ApiRevision;
  /** 2026 only: CDRs no longer carry the deprecated `uuid` and `parent_uuid` (default false). */
  readonly dropDeprecated?: boolean;
  /** Added to the sandbox clock in the `Date` header of every answer, ms, may be negative (default 0). */
  readonly clockSkewMs?: number;
  /**
   * Whether speech analytics is provisioned for the accounts (default true). When false, every
   * transcription route (a call's under its CDR, and speech-analytics) answers 403 "The service is
   * not provisioned for your account." (platform-facts.md "A call's transcription").
   */
  readonly speechAnalytics?: boolean;
}

/** Options with every default applied. */
export interface ResolvedSandboxOptions {
  readonly port: number;
  readonly host: string;
  readonly seed: number;
  readonly start: string;
  readonly startMs: number;
  readonly days: number;
  readonly accounts: number;
  readonly callsPerDay: number;
  readonly faults: FaultProfile;
  readonly latencyMs: number;
  readonly rateLimit: number;
  readonly maxPerPage: number;
  /** Initial clock in epoch ms, or `real`. */
  readonly now: number | "real";
  readonly lateShare: number;
  readonly shuffle: boolean;
  readonly cacheRows: number;
  readonly apiRevision: ApiRevision;
  readonly dropDeprecated: boolean;
  readonly clockSkewMs: number;
  readonly speechAnalytics: boolean;
}

/** Milliseconds per day. */
export const DAY_MS = 86_400_000;

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** Epoch ms at 00:00 UTC of `text` when it is a real calendar day written `YYYY-MM-DD`, else null. */
export function dayMsOf(text: string): number | null {
  if (!DAY_PATTERN.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) || formatDay(ms) !== text ? null : ms;
}

/** Parses `YYYY-MM-DD` to epoch ms at 00:00 UTC, or throws. */
export function parseDay(text: string): number {
  if (!DAY_PATTERN.test(text)) throw new Error(`expected YYYY-MM-DD, got ${text}`);
  const ms = dayMsOf(text);
  if (ms === null) throw new Error(`invalid date ${text}`);
  return ms;
}

/** Formats epoch ms as `YYYY-MM-DD` (UTC). */
export function formatDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function positiveInt(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(
      max === Number.MAX_SAFE_INTEGER
        ? `${name} must be an integer >= ${min}`
        : `${name} must be an integer from ${min} to ${max}`,
    );
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!(Number.isFinite(value) && value >= 0)) throw new Error(`${name} must be a number >= 0`);
  return value;
}

function startDay(start: string): number {
  try {
    return parseDay(start);
  } catch (error) {
    throw new Error(`start: ${(error as Error).message}`);
  }
}

/** Applies defaults and checks ranges; throws an Error whose message starts with the bad option's name. */
export function resolveSandboxOptions(options: SandboxOptions = {}): ResolvedSandboxOptions {
  const days = positiveInt("days", options.days ?? 90, 1);
  const real = options.now === "real";
  const start =
    options.start ??
    (real ? formatDay(Math.floor(Date.now() / DAY_MS) * DAY_MS - (days - 1) * DAY_MS) : "2026-08-01");
  const startMs = startDay(start);
  let now: number | "real";
  if (options.now === undefined) now = startMs + days * DAY_MS;
  else if (real) now = "real";
  else if (typeof options.now === "number") now = options.now;
  else {
    now = Date.parse(options.now);
    if (Number.isNaN(now)) throw new Error(`now must be an ISO date-time or "real", got ${options.now}`);
  }
  const lateShare = options.lateShare ?? 0.02;
  if (!(lateShare >= 0 && lateShare <= 1)) throw new Error("lateShare must be between 0 and 1");
  const apiRevision = options.apiRevision ?? "2024";
  if (!API_REVISIONS.includes(apiRevision)) {
    throw new Error(`apiRevision must be ${API_REVISIONS.join(" or ")}, got ${String(apiRevision)}`);
  }
  const dropDeprecated = options.dropDeprecated ?? false;
  // Only the 2026 revision has replacements for the deprecated fields.
  if (dropDeprecated && apiRevision !== "2026") throw new Error("dropDeprecated needs API revision 2026");
  const clockSkewMs = options.clockSkewMs ?? 0;
  if (!Number.isSafeInteger(clockSkewMs))
    throw new Error("clockSkewMs must be an integer (ms; negative = behind)");
  return {
    port: positiveInt("port", options.port ?? 0, 0, 65_535),
    host: options.host ?? "127.0.0.1",
    seed: positiveInt("seed", options.seed ?? 1, 0),
    start,
    startMs,
    days,
    accounts: positiveInt("accounts", options.accounts ?? 3, 1),
    callsPerDay: positiveInt("callsPerDay", options.callsPerDay ?? 2000, 0),
    faults: resolveFaultProfile(options.faults ?? "none"),
    latencyMs: positiveInt("latencyMs", options.latencyMs ?? 0, 0),
    rateLimit: nonNegative("rateLimit", options.rateLimit ?? 0),
    maxPerPage: positiveInt("maxPerPage", options.maxPerPage ?? 100, 1),
    now,
    lateShare,
    shuffle: options.shuffle ?? false,
    cacheRows: positiveInt("cacheRows", options.cacheRows ?? 150_000, 0),
    apiRevision,
    dropDeprecated,
    clockSkewMs,
    speechAnalytics: options.speechAnalytics ?? true,
  };
}
