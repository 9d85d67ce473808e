/**
 * The re-count of settled windows: before a `run` plans, the platform's `pagination.total` of a
 * share of the settled windows of the last `recount_days` (one `per_page=1` request per window and
 * direction, the windows checked longest ago first, within a request budget) is compared with the
 * rows the warehouse holds there; a window that differs is opened again, so the plan re-reads it in
 * the same run. `telecom-etl recount --from --to` counts every settled window of a range. A list
 * that lied consistently (a total equal to its rows, a page boundary that looked like the end), a
 * row the platform moved into a settled day or removed from one: the count tells, the re-read fixes.
 */

import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import pLimit from "p-limit";
import { type ApiClient, newRequestTally, type RequestTally } from "../../api/http-client.js";
import type { AccountConfig, RecountConfig } from "../../config/config.js";
import { AuthError, describeError, PermissionError, SliceError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import { type DateWindow, sliceLabel } from "../../core/slices.js";
import { addDays } from "../../core/utc-days.js";
import { isRecounted, type RecountPart, recountParts } from "../../streams/recount-parts.js";
import type { RequestContext, StreamDefinition, StreamRequest } from "../../streams/stream-definition.js";
import type { Warehouse } from "../../warehouse/connection/connect-warehouse.js";
import type { StreamLocks } from "../../warehouse/coordination/stream-locks.js";
import {
  type PartCount,
  type RecountRecord,
  recordWindowCount,
  settledWindowsToCount,
  storedRowsByPart,
} from "../../warehouse/state/window-counts.js";
import { requestContextOf } from "../clients/request-context.js";

/** Which settled windows an account's re-count checks: a `run`'s budgeted share, or all of a range (`recount`). */
export type RecountScope =
  | {
      readonly kind: "nightly";
      readonly today: string;
      /** The run loads nothing after this day (`--until`). */
      readonly until?: string;
      readonly settings: RecountConfig;
      readonly windowDays: number;
    }
  | { readonly kind: "range"; readonly today: string; readonly from: string; readonly to: string };

/** What the re-count of an account needs from its run. */
export interface RecountEnvironment {
  readonly warehouse: Warehouse;
  readonly runId: number;
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly locks: StreamLocks;
  readonly account: AccountConfig;
  readonly revision: ApiRevision;
  /** Requests in flight at once (the key's concurrency). */
  readonly concurrency: number;
  /** Stops the account (a refused key, an unreachable host), as a load would. */
  readonly accountAbort: AbortController;
}

/** A stream to re-count, with the client its reads use (a sub-account's ledger: its master's). */
export interface RecountStream {
  readonly stream: StreamDefinition;
  readonly client: ApiClient;
}

/** What the re-count of one (account, stream) did in a run, with what its requests cost. */
export interface RecountTally extends RecountRecord {
  readonly throttled: number;
}

/** One settled window to count: its stream, its requests, and when it was last counted. */
interface Candidate {
  readonly target: RecountStream;
  readonly window: DateWindow;
  readonly checkedAt: Date | null;
  readonly parts: readonly RecountPart[];
}

/**
 * Requests a run's re-count of one account may send: `recount_max_requests`, or else a seventh of
 * what one re-count of every settled window of the last `recount_days` takes (`perWindow`: the
 * requests one window of every re-counted stream takes, per direction), plus one day's new
 * windows, so a week of nightly runs checks each of them at least once.
 */
export function recountBudget(settings: RecountConfig, perWindow: number, windowDays: number): number {
  if (settings.maxRequests !== undefined) return settings.maxRequests;
  const windows = Math.ceil(settings.days / Math.max(1, windowDays));
  return Math.ceil((windows * perWindow) / 7) + perWindow;
}

/** The requests one window of each of `streams` takes to count (CDRs and messages: one per direction). */
function requestsPerWindow(
  streams: readonly RecountStream[],
  context: Omit<RequestContext, "discovered">,
): number {
  const window = { start: context.today, end: addDays(context.today, 1) };
  return streams.reduce((sum, s) => sum + recountParts(s.stream, window, context).length, 0);
}

/**
 * The windows a budget of `budget` requests checks, from candidates already in order (checked
 * longest ago first, never checked before anything): each in turn while its requests fit.
 */
export function withinBudget<T extends { readonly parts: readonly unknown[] }>(
  candidates: readonly T[],
  budget: number,
): T[] {
  const chosen: T[] = [];
  let left = budget;
  for (const candidate of candidates) {
    if (candidate.parts.length > left) continue;
    chosen.push(candidate);
    left -= candidate.parts.length;
  }
  return chosen;
}

/** The never-checked windows first, then those checked longest ago; oldest window first among equals. */
function byLastCheck(a: Candidate, b: Candidate): number {
  const at = (c: Candidate) => (c.checkedAt === null ? -1 : c.checkedAt.getTime());
  return at(a) - at(b) || a.window.start.localeCompare(b.window.start);
}

/** The settled windows of every re-counted stream the scope covers, in the order they are checked. */
async function candidatesOf(
  env: RecountEnvironment,
  streams: readonly RecountStream[],
  scope: RecountScope,
  context: Omit<RequestContext, "discovered">,
): Promise<Candidate[]> {
  const range =
    scope.kind === "range"
      ? { from: scope.from, to: addDays(scope.to, 1) }
      : { from: addDays(scope.today, -scope.settings.days), to: addDays(scope.until ?? scope.today, 1) };
  const candidates: Candidate[] = [];
  for (const target of streams) {
    const settled = await settledWindowsToCount(env.warehouse.db, {
      account: env.account.name,
      stream: target.stream.name,
      ...range,
    });
    for (const { window, checkedAt } of settled)
      candidates.push({ target, window, checkedAt, parts: recountParts(target.stream, window, context) });
  }
  return candidates.sort(byLastCheck);
}

/**
 * Re-counts the settled windows of `streams` (those the re-count checks) that `scope` selects,
 * re-opening every window whose counts differ; returns what it did per stream (streams it did
 * nothing for are left out). Never throws for the platform's sake: see {@link countAll}.
 */
export async function recountAccount(
  env: RecountEnvironment,
  streams: readonly RecountStream[],
  scope: RecountScope,
): Promise<Map<string, RecountTally>> {
  const recounted = streams.filter((s) => isRecounted(s.stream));
  if (recounted.length === 0 || (scope.kind === "nightly" && scope.settings.days === 0)) return new Map();
  const context = requestContextOf(env.account, env.revision, scope.today);
  const candidates = await candidatesOf(env, recounted, scope, context);
  const budget =
    scope.kind === "range"
      ? Number.POSITIVE_INFINITY
      : recountBudget(scope.settings, requestsPerWindow(recounted, context), scope.windowDays);
  return countAll(env, withinBudget(candidates, budget));
}

/**
 * Counts `chosen` windows, the key's concurrency at a time. A refused key stops the account
 * (`accountAbort`, as a load would); a stream the key may not read is left to its loads to report;
 * any other failure stops the account's re-count for this run (said in the summary; the windows
 * not counted come first next time).
 */
async function countAll(
  env: RecountEnvironment,
  chosen: readonly Candidate[],
): Promise<Map<string, RecountTally>> {
  const tallies = new Map<string, OpenTally>();
  const stop = new AbortController();
  const signal = AbortSignal.any([env.signal, env.accountAbort.signal, stop.signal, env.locks.lost]);
  const skipped = new Set<string>();
  const limit = pLimit(Math.max(1, env.concurrency));
  await Promise.all(
    chosen.map((candidate) =>
      limit(async () => {
        const name = candidate.target.stream.name;
        if (signal.aborted || skipped.has(name)) return;
        const tally = tallies.get(name) ?? emptyTally();
        tallies.set(name, tally);
        const http = newRequestTally();
        try {
          await countWindow(env, candidate, http, signal, tally);
        } catch (error) {
          if (error instanceof AuthError) {
            if (!env.accountAbort.signal.aborted) env.accountAbort.abort(error);
          } else if (error instanceof PermissionError) skipped.add(name);
          else if (!signal.aborted) {
            stop.abort(error);
            tally.stopped = `the re-count stopped at window ${sliceLabel({ kind: "window", window: candidate.window })}: ${describeError(error)}; the windows not counted come first in the next run`;
            env.log.warn({ account: env.account.name, stream: name }, tally.stopped);
          }
        } finally {
          tally.requests += http.requests;
          tally.throttled += http.throttled;
        }
      }),
    ),
  );
  // Counted side by side: said oldest window first, whatever finished first.
  for (const tally of tallies.values()) tally.differing.sort((a, b) => a.window.localeCompare(b.window));
  return tallies;
}

/** A tally that can still grow. */
type OpenTally = { -readonly [K in keyof RecountTally]: RecountTally[K] } & {
  differing: { window: string; counts: readonly PartCount[] }[];
};

function emptyTally(): OpenTally {
  return { windows: 0, requests: 0, throttled: 0, differing: [] };
}

/** Counts one window on both sides, records it, and re-opens it when they differ. */
async function countWindow(
  env: RecountEnvironment,
  candidate: Candidate,
  http: RequestTally,
  signal: AbortSignal,
  tally: OpenTally,
): Promise<void> {
  const { stream, client } = candidate.target;
  const totals = await Promise.all(
    candidate.parts.map((part) => platformTotal(client, stream, part.request, http, signal)),
  );
  const stored = await storedRowsByPart(env.warehouse.db, {
    table: stream.table,
    stream: stream.name,
    account: env.account.name,
    window: candidate.window,
    parts: candidate.parts,
  });
  const counts = candidate.parts.map((part, i) => ({
    part: part.part,
    platform: totals[i]!,
    warehouse: stored.get(part.part) ?? 0,
  }));
  const differs = counts.some((c) => c.platform !== c.warehouse);
  await recordWindowCount(
    env.warehouse,
    {
      account: env.account.name,
      stream: stream.name,
      window: candidate.window,
      runId: env.runId,
      counts,
      ...(differs ? { reopen: { fewerOnPlatform: counts.some((c) => c.platform < c.warehouse) } } : {}),
    },
    (pgClient) => env.locks.fence(pgClient, { account: env.account.name, stream: stream.name }),
  );
  tally.windows++;
  if (!differs) return;
  const label = sliceLabel({ kind: "window", window: candidate.window });
  tally.differing.push({ window: label, counts });
  env.log.warn(
    { account: env.account.name, stream: stream.name, window: label, counts },
    `${describeDifference(env.account.name, stream.name, label, counts)}: opened again`,
  );
}

/** The platform's `pagination.total` of one request of a window, asked with `page=1&per_page=1`. */
async function platformTotal(
  client: ApiClient,
  stream: StreamDefinition,
  request: StreamRequest,
  tally: RequestTally,
  signal: AbortSignal,
): Promise<number> {
  const answer = stream.answer;
  if (answer.kind !== "pages") throw new Error(`stream ${stream.name} has no paged answer to count`);
  const response = await client.getJson(
    request.path,
    { ...request.query, page: 1, per_page: 1 },
    { stream: stream.name, permission: stream.permission, signal, tally },
  );
  const query = Object.entries(request.query)
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const where = `stream ${stream.name}: GET ${request.path}?${query}`;
  if (response.status !== 200)
    throw new SliceError(`${where}: the platform answered ${response.status} to a re-count`, {
      stream: stream.name,
    });
  const parsed = answer.envelope.safeParse(response.body);
  if (!parsed.success)
    throw new SliceError(`${where}: the answer does not have the expected shape`, { stream: stream.name });
  // A valid empty answer may carry no pagination (the ledger's `is_empty: true`): nothing to list.
  return answer.pagination(parsed.data)?.total ?? 0;
}

/**
 * The one line saying how a window's counts differ: `account acme, stream cdrs, window
 * 2026-08-02..2026-08-03: the platform counts 153 rows (placed), the warehouse holds 100`.
 */
export function describeDifference(
  account: string,
  stream: string,
  window: string,
  counts: readonly PartCount[],
): string {
  const parts = counts
    .filter((c) => c.platform !== c.warehouse)
    .map((c) => {
      const which = c.part === "" ? "" : ` (${c.part})`;
      return `the platform counts ${c.platform} rows${which}, the warehouse holds ${c.warehouse}`;
    });
  return `account ${account}, stream ${stream}, window ${window}: ${parts.join("; ")}`;
}

/**
 * What a re-count of one (account, stream) did, one line and then one per window that differed
 * (and why it stopped, if it did): for the run summary, `runs show`, the night's page and `recount`.
 */
export function recountLines(account: string, stream: string, record: RecountRecord): string[] {
  const verdict =
    record.differing.length === 0
      ? "all agree"
      : `${record.differing.length} differed, opened again (read again by the run that plans them)`;
  return [
    `re-count: ${record.windows} settled window(s) checked against the platform's totals (${record.requests} request(s)); ${verdict}`,
    ...record.differing.map((d) => `re-count: ${describeDifference(account, stream, d.window, d.counts)}`),
    ...(record.stopped === undefined ? [] : [`re-count: ${record.stopped}`]),
  ];
}
