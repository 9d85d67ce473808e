/**
 * One slice of one (account, stream), start to end: extract (pages + completeness), parse (zod),
 * load (one transaction with its run_slices record and, for a past window, its completion). What
 * went wrong decides what stops: a 401 stops the account, a 403 skips the stream for this account,
 * anything else fails this window only (recorded, left open) while the others go on.
 */
import { type ApiClient, newRequestTally, type RequestTally } from "../api/http-client.js";
import type { AccountConfig } from "../config.js";
import { AuthError, describeError, PermissionError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Clock } from "../ports.js";
import { sliceLabel } from "../streams/slice-label.js";
import type { Slice, StreamDefinition } from "../streams/stream-definition.js";
import type { Warehouse } from "../warehouse/connect-warehouse.js";
import { loadSlice } from "../warehouse/load-slice.js";
import { recordFailedSlice, sliceRecordQuery } from "../warehouse/slice-records.js";
import { extractSlice } from "./extract-slice.js";
import { type ParsedRows, parseRows } from "./parse-rows.js";
import type { ProgressReporter } from "./run-progress.js";

/** A slice to load and whether loading it may mark its window complete. */
export interface PlannedSlice {
  readonly slice: Slice;
  readonly complete: boolean;
}

/** How one (account, stream) ended in a run. */
export const STREAM_OUTCOMES = ["succeeded", "failed", "skipped", "auth_failed", "interrupted"] as const;
/** `skipped`: 403, the key lacks the stream's permission; `auth_failed`: 401 for the account. */
export type StreamOutcome = (typeof STREAM_OUTCOMES)[number];

/** Figures of one (account, stream) in one run. */
export interface StreamSummary {
  readonly account: string;
  readonly stream: string;
  readonly status: StreamOutcome;
  readonly windowsPlanned: number;
  readonly windowsLoaded: number;
  readonly windowsCompleted: number;
  readonly windowsFailed: number;
  readonly windowsNotRun: number;
  readonly requests: number;
  readonly rowsFetched: number;
  readonly inserted: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly deleted: number;
  readonly rejected: number;
  readonly duplicates: number;
  /** Why the stream stopped (403/401), or the first errors of failed windows. */
  readonly errors: readonly string[];
}

/** Everything a stream's slices share during a run. */
export interface StreamJob {
  readonly id: string;
  readonly account: AccountConfig;
  readonly stream: StreamDefinition;
  readonly plan: readonly PlannedSlice[];
  readonly client: ApiClient;
  readonly concurrency: number;
  /** Aborted on a 403 for this stream (skip it) or a 401 for its account (the account's controller). */
  readonly streamAbort: AbortController;
  readonly accountAbort: AbortController;
  readonly tally: { -readonly [K in keyof StreamSummary]: StreamSummary[K] } & { errors: string[] };
}

/** The run-wide pieces a slice needs. */
export interface SliceEnvironment {
  readonly warehouse: Warehouse;
  readonly runId: number;
  readonly perPage: number;
  readonly clock: Clock;
  readonly log: Logger;
  /** The process's interruption (SIGINT/SIGTERM): no new slice starts once it aborts. */
  readonly signal: AbortSignal;
  readonly progress: ProgressReporter;
}

const MAX_ERRORS_KEPT = 5;

/** A fresh tally for a stream about to run `planned` slices. */
export function newTally(account: string, stream: string, planned: number): StreamJob["tally"] {
  return {
    account,
    stream,
    status: "succeeded",
    windowsPlanned: planned,
    windowsLoaded: 0,
    windowsCompleted: 0,
    windowsFailed: 0,
    windowsNotRun: 0,
    requests: 0,
    rowsFetched: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    rejected: 0,
    duplicates: 0,
    errors: [],
  };
}

/** Runs one slice of `job`; never throws (every outcome lands in the job's tally). */
export async function runSlice(env: SliceEnvironment, job: StreamJob, planned: PlannedSlice): Promise<void> {
  const { tally, stream } = job;
  const signal = AbortSignal.any([env.signal, job.accountAbort.signal, job.streamAbort.signal]);
  if (signal.aborted) {
    tally.windowsNotRun++;
    return;
  }
  const label = sliceLabel(planned.slice);
  const completesWindow = planned.complete && planned.slice.kind === "window";
  const context = { account: job.account.name, window: label };
  const startedAt = new Date(env.clock.now());
  // The client counts every request it sends for this slice, retries included.
  const http = newRequestTally();
  let rowsFetched = 0;
  try {
    let extracted: Awaited<ReturnType<typeof extractSlice>> | undefined = await extractSlice({
      client: job.client,
      stream,
      slice: planned.slice,
      perPage: env.perPage,
      concurrency: job.concurrency,
      signal,
      log: env.log,
      context,
      onPage: () => env.progress.page(job.id),
      tally: http,
    });
    rowsFetched = extracted.rowsFetched;
    const parsed: ParsedRows = { rows: [], rejects: [] };
    for (const part of extracted.requests) parseRows(stream, part.rows, part.request.implied, parsed);
    // The raw rows are not needed any more: let them go before the load holds its own copy.
    extracted = undefined;
    // From here on the window's data is complete: load it even if an interruption arrives now.
    const result = await loadSlice(env.warehouse, {
      stream,
      account: job.account.name,
      runId: env.runId,
      extractedAt: startedAt,
      slice: planned.slice,
      rows: parsed.rows,
      rejects: parsed.rejects,
      stats: { requests: http.requests, retries: http.retries, rowsFetched, startedAt },
      completeWindow: completesWindow,
    });
    tally.windowsLoaded++;
    if (completesWindow) tally.windowsCompleted++;
    tally.requests += http.requests;
    tally.rowsFetched += rowsFetched;
    tally.inserted += result.inserted;
    tally.updated += result.updated;
    tally.unchanged += result.unchanged;
    tally.deleted += result.deleted;
    tally.rejected += result.rejected;
    tally.duplicates += result.duplicates;
    env.progress.windowDone(job.id, {
      window: label,
      status: "succeeded",
      rows: parsed.rows.length,
      rejected: result.rejected,
      requests: http.requests,
      completed: completesWindow,
    });
  } catch (error) {
    tally.requests += http.requests;
    await onSliceError(env, job, planned, error, { http, rowsFetched, startedAt, signal });
  }
}

async function onSliceError(
  env: SliceEnvironment,
  job: StreamJob,
  planned: PlannedSlice,
  error: unknown,
  stats: { http: RequestTally; rowsFetched: number; startedAt: Date; signal: AbortSignal },
): Promise<void> {
  const { tally } = job;
  const label = sliceLabel(planned.slice);
  const identity = {
    runId: env.runId,
    account: job.account.name,
    stream: job.stream.name,
    slice: planned.slice,
  };
  const sliceStats = {
    requests: stats.http.requests,
    retries: stats.http.retries,
    rowsFetched: stats.rowsFetched,
    startedAt: stats.startedAt,
  };
  if (error instanceof AuthError) {
    if (!job.accountAbort.signal.aborted) {
      job.accountAbort.abort(error);
      env.log.error({ account: job.account.name }, error.message);
    }
    tally.windowsNotRun++;
    return;
  }
  if (error instanceof PermissionError) {
    tally.windowsNotRun++;
    if (job.streamAbort.signal.aborted) return;
    job.streamAbort.abort(error);
    tally.errors.push(error.message);
    env.log.error({ account: job.account.name, stream: job.stream.name }, error.message);
    env.progress.windowDone(job.id, {
      window: label,
      status: "skipped",
      rows: 0,
      rejected: 0,
      requests: 0,
      completed: false,
      error: error.message,
    });
    // One `skipped` record tells `status` why the stream has no data for this account.
    await env.warehouse.db
      .executeQuery(
        sliceRecordQuery(env.warehouse.db, identity, {
          status: "skipped",
          stats: sliceStats,
          error: error.message,
        }),
      )
      .catch((recordError: unknown) =>
        env.log.warn({ error: describeError(recordError) }, "could not record the skipped stream"),
      );
    return;
  }
  if (stats.signal.aborted) {
    // Interrupted, or a sibling slice stopped the stream/account: nothing was written, nothing to record.
    tally.windowsNotRun++;
    return;
  }
  tally.windowsFailed++;
  const message = describeError(error);
  if (tally.errors.length < MAX_ERRORS_KEPT) tally.errors.push(`${label}: ${message}`);
  env.progress.windowDone(job.id, {
    window: label,
    status: "failed",
    rows: 0,
    rejected: 0,
    requests: stats.http.requests,
    completed: false,
    error: message,
  });
  await recordFailedSlice(env.warehouse, { ...identity, stats: sliceStats, error }).catch(
    (recordError: unknown) =>
      env.log.error(
        { window: label, error: describeError(recordError) },
        "could not record the failed window",
      ),
  );
}

/** The final summary of a job once all its slices ran. */
export function summarize(job: StreamJob): StreamSummary {
  const { tally } = job;
  let status: StreamOutcome = "succeeded";
  const unfinished = tally.windowsLoaded + tally.windowsFailed < tally.windowsPlanned;
  if (job.accountAbort.signal.reason instanceof AuthError && unfinished) status = "auth_failed";
  else if (job.streamAbort.signal.aborted) status = "skipped";
  else if (tally.windowsFailed > 0) status = "failed";
  else if (tally.windowsNotRun > 0) status = "interrupted";
  const errors =
    status === "auth_failed"
      ? [stoppedByAuth(job.stream.name, job.accountAbort.signal.reason as AuthError), ...tally.errors]
      : tally.errors;
  return { ...tally, status, errors };
}

/**
 * Why a stream stopped when its account's key was refused. The 401 came from whichever request of
 * the account met it first, so each stream names itself before the shared message.
 */
export function stoppedByAuth(stream: string, error: AuthError): string {
  return `stream ${stream} stopped: ${error.message}`;
}
