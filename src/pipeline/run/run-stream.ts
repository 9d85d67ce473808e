/**
 * One slice of one (account, stream), start to end: extract (pages + completeness), parse (zod),
 * load (one transaction with its run_slices record and, for a past window, its completion). What
 * went wrong decides what stops: a 401 stops the account, a 403 skips the stream for this account,
 * anything else fails this window only (recorded, left open) while the others go on.
 */

import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { type ApiClient, newRequestTally, type RequestTally } from "../../api/http-client.js";
import type { AccountConfig, RetentionConfig, StreamSettings } from "../../config/config.js";
import {
  AuthError,
  describeError,
  LockHeldError,
  PermissionError,
  UnreachableHostError,
} from "../../core/errors.js";
import type { KnownSecrets } from "../../core/known-secrets.js";
import type { Logger } from "../../core/log.js";
import type { Clock } from "../../core/ports.js";
import { sliceLabel } from "../../core/slices.js";
import type { LoadRow } from "../../streams/load-row.js";
import type { Slice, StreamDefinition } from "../../streams/stream-definition.js";
import { retentionHorizon } from "../../warehouse/admin/partition-retention.js";
import type { Warehouse } from "../../warehouse/connection/connect-warehouse.js";
import type { StreamLocks } from "../../warehouse/coordination/stream-locks.js";
import { type LoadHold, loadSlice, type SettledWindowGuard } from "../../warehouse/load/load-slice.js";
import type { RunWrittenKeys } from "../../warehouse/load/run-written-keys.js";
import type { TrackedUpdate } from "../../warehouse/state/lookup-candidates.js";
import { recordFailedSlice, sliceRecordQuery } from "../../warehouse/state/slice-records.js";
import { recordUnknownFields } from "../../warehouse/state/unknown-fields.js";
import type { RecountRecord } from "../../warehouse/state/window-counts.js";
import { requestContextOf } from "../clients/request-context.js";
import { type ExtractedRequest, type ExtractedSlice, extractSlice } from "../extract/extract-slice.js";
import { OUTSIDE_WINDOW, outsideWindowCheck, splitOutside } from "../extract/outside-window.js";
import { emptyParsedRows, type ParsedRows, parseRows } from "../extract/parse-rows.js";
import type { PlatformClockWatch } from "../extract/platform-clock.js";
import type { RowIssue } from "../extract/row-issue.js";
import {
  contractRefusal,
  contractRows,
  EVOLVED_JSON_TYPES,
  FIELDS_DISCARDED,
} from "../extract/schema-contract.js";
import {
  describeNewField,
  type FieldSighting,
  type NewField,
  unknownFieldsOf,
} from "../extract/unknown-fields.js";
import { type AcceptedHolds, isAccepted } from "../holds/accepted-holds.js";
import { holdOf } from "../holds/read-holds.js";
import { settledDeletionHold } from "../holds/window-holds.js";
import { settledBy } from "../plan/plan-windows.js";
import type { RecountTally } from "../plan/recount-windows.js";
import type { ProgressReporter } from "./run-progress.js";
import { prepareContract, type SliceContract } from "./slice-contract.js";

/** A slice to load and whether loading it may mark its window complete. */
export interface PlannedSlice {
  readonly slice: Slice;
  readonly complete: boolean;
  /**
   * The window was settled before this run (or re-opened after it settled, and not settled again):
   * a read deleting any of its stored rows is held until confirmed (`--accept-shrink`).
   */
  readonly settled?: boolean;
  /** The window was re-opened after it settled: a merge stream's read also removes the rows the platform no longer lists. */
  readonly reopened?: boolean;
  /**
   * Read after the account's other windows (a re-opened merge window where the platform counts
   * fewer rows than the warehouse): a row that moved to another day is merged there first, so it
   * is not taken for vanished here.
   */
  readonly deferred?: boolean;
}

/** How one (account, stream) ended in a run. */
export const STREAM_OUTCOMES = [
  "succeeded",
  "failed",
  "skipped",
  "not_provisioned",
  "auth_failed",
  "unreachable",
  "interrupted",
] as const;
/**
 * `skipped`: 403, the key lacks the stream's permission; `not_provisioned`: 403 on a stream of a
 * product the account does not have (speech analytics), a warning; `auth_failed`: 401 for the
 * account; `unreachable`: the account's host does not resolve or refuses every connection.
 */
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
  /** Windows read but held (too many rejects, a shrink, a drift, missing charges): nothing written, left open. */
  readonly windowsHeld: number;
  readonly windowsNotRun: number;
  readonly requests: number;
  /** Requests the platform answered 429 (throttled), retried or not. */
  readonly throttled: number;
  readonly rowsFetched: number;
  readonly inserted: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly deleted: number;
  readonly rejected: number;
  /** Rows per data-quality check (values that look like data but are not), e.g. `missing_charge`. */
  readonly quality: Readonly<Record<string, number>>;
  /** For a lookup: ids asked about, by the state the platform's answer put them in. */
  readonly lookups: Readonly<Record<string, number>>;
  /** Why the stream stopped (403/401), the held windows, or the first errors of failed windows. */
  readonly errors: readonly string[];
  /** Fields not in the schema (kept in `_extra`) that this run was the first to see: reported once, here. */
  readonly newFields: readonly NewField[];
  /** What the run's re-count of the stream's settled windows did (its requests are in `requests`); null when none ran. */
  readonly recount: RecountRecord | null;
}

/** Everything a stream's slices share during a run. */
export interface StreamJob {
  readonly id: string;
  readonly account: AccountConfig;
  readonly stream: StreamDefinition;
  /** The job's slices; a lookup's are added once the account's other streams have loaded. */
  readonly plan: PlannedSlice[];
  readonly settings: StreamSettings;
  /** The API revision the account is read with this run. */
  readonly revision: ApiRevision;
  readonly client: ApiClient;
  readonly concurrency: number;
  /** Aborted on a 403 for this stream (skip it) or a 401 for its account (the account's controller). */
  readonly streamAbort: AbortController;
  readonly accountAbort: AbortController;
  /** What the run has written into the stream's tables partitioned by month (see RunWrittenKeys). */
  readonly writtenKeys: RunWrittenKeys;
  readonly tally: { -readonly [K in keyof StreamSummary]: StreamSummary[K] } & {
    errors: string[];
    quality: Record<string, number>;
    lookups: Record<string, number>;
    newFields: NewField[];
  };
}

/** The run-wide pieces a slice needs. */
export interface SliceEnvironment {
  readonly warehouse: Warehouse;
  readonly runId: number;
  /** The run's UTC day. */
  readonly today: string;
  readonly perPage: number;
  readonly clock: Clock;
  /** The run's own clock (its start, from the system clock or TELECOM_ETL_NOW) and the platform's. */
  readonly clockWatch: PlatformClockWatch;
  /** The run's locks: no slice starts once they are lost, and every load commits behind their fence. */
  readonly locks: StreamLocks;
  readonly log: Logger;
  /** The process's interruption (SIGINT/SIGTERM): no new slice starts once it aborts. */
  readonly signal: AbortSignal;
  readonly progress: ProgressReporter;
  /** Holds the operator confirmed for this run (`--accept-shrink`, `--accept-drift`). */
  readonly accepted: AcceptedHolds;
  /** The run's known secrets: every stored row is masked with them (see parse-rows.ts). */
  readonly secrets: KnownSecrets;
  /** Longest one load statement may run (the window is then loaded again on a new connection). */
  readonly loadStatementTimeoutMs?: number;
  /** Retention of the tables partitioned by month (config `retention`): no month before its horizon is created needlessly. */
  readonly retention?: RetentionConfig | undefined;
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
    windowsHeld: 0,
    windowsNotRun: 0,
    requests: 0,
    throttled: 0,
    rowsFetched: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    rejected: 0,
    quality: {},
    lookups: {},
    errors: [],
    newFields: [],
    recount: null,
  };
}

/** Adds what the re-count of a stream did before its windows were planned (its requests count as the stream's). */
export function addRecount(tally: StreamJob["tally"], recount: RecountTally | undefined): void {
  if (recount === undefined) return;
  const { throttled, ...record } = recount;
  tally.recount = record;
  tally.requests += recount.requests;
  tally.throttled += throttled;
}

/** Rows of `rows` per quality check of `stream` that they fail (checks no row fails are left out). */
export function countQuality(stream: StreamDefinition, rows: readonly LoadRow[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const check of stream.qualityChecks ?? []) {
    let n = 0;
    for (const row of rows) if (check.test(row.columns)) n++;
    if (n > 0) counts[check.name] = n;
  }
  return counts;
}

/** Runs one slice of `job`; never throws (every outcome lands in the job's tally). */
export async function runSlice(env: SliceEnvironment, job: StreamJob, planned: PlannedSlice): Promise<void> {
  const signal = AbortSignal.any([
    env.signal,
    env.locks.lost,
    job.accountAbort.signal,
    job.streamAbort.signal,
  ]);
  if (signal.aborted) {
    job.tally.windowsNotRun++;
    return;
  }
  const startedAt = new Date(env.clock.now());
  // The client counts every request it sends for this slice, retries included.
  const http = newRequestTally();
  let rowsFetched = 0;
  try {
    let extracted: ExtractedSlice | undefined = await extractPlanned(env, job, planned, signal, http);
    rowsFetched = extracted.rowsFetched;
    const { answerQuality, platformClock } = extracted;
    env.clockWatch.observe(platformClock, job.account.name);
    // The read counts as made at the earlier of the run's clock and the platform's (without the
    // platform's clock, the run's clock less the missing-clock margin).
    const readAt = env.clockWatch.readInstant(platformClock, startedAt.getTime(), job.account.name);
    // The raw rows are passed, never bound to a name of this function: `extracted` alone holds
    // them, so they go when it is cleared below.
    const contract = await prepareContract(
      env.warehouse,
      job.stream,
      job.settings.schemaContract,
      { runId: env.runId, account: job.account.name, window: sliceLabel(planned.slice) },
      extracted.requests,
    );
    const read = parseRead(env, job, planned, extracted.requests, contract);
    // The raw rows are not needed any more: let them go before the load holds its own copy.
    extracted = undefined;
    const facts = { http, rowsFetched, startedAt, readAt, answerQuality };
    const loaded = await loadRead(env, { ...job, stream: contract.loadStream }, planned, read, facts);
    await tallyLoaded(env, job, planned, read, { ...loaded, ...facts });
  } catch (error) {
    job.tally.requests += http.requests;
    job.tally.throttled += http.throttled;
    await onSliceError(env, job, planned, error, { http, rowsFetched, startedAt, signal });
  }
}

/** The pages of a planned slice, read within the job's concurrency (see extractSlice). */
function extractPlanned(
  env: SliceEnvironment,
  job: StreamJob,
  planned: PlannedSlice,
  signal: AbortSignal,
  http: RequestTally,
): Promise<ExtractedSlice> {
  return extractSlice({
    client: job.client,
    stream: job.stream,
    slice: planned.slice,
    requestContext: requestContextOf(job.account, job.revision, env.today),
    perPage: env.perPage,
    concurrency: job.concurrency,
    signal,
    log: env.log,
    context: { account: job.account.name, window: sliceLabel(planned.slice) },
    onPage: () => env.progress.page(job.id),
    tally: http,
    now: () => env.clock.now(),
  });
}

/** A slice's rows parsed: rows and rejects, a lookup's new states, and its rows outside the window. */
interface ParsedRead {
  readonly parsed: ParsedRows;
  /** Its schema contract, and the unknown fields `discard` dropped (to report) with the rows they were dropped from. */
  readonly contract: SliceContract;
  readonly discarded: { readonly fields: readonly FieldSighting[]; readonly rows: number };
  /**
   * The valid rows before the contract moved or dropped their unknown fields: what the holds judge,
   * so a renamed field is held as a drift whatever the contract (evolve would make it a column).
   */
  readonly judged: readonly LoadRow[];
  readonly tracked: ReturnType<typeof lookupStates>;
  /** Rejects that failed validation (what the reject share judges). */
  readonly invalid: ParsedRows["rejects"];
  /** Rows served for the window that lie outside it, and whether they were rejected for it. */
  readonly outside: { readonly count: number; readonly rejected: boolean };
}

/**
 * Parses every request's rows of a slice. Rows dated outside the window read: a replaced window
 * cannot load them (their own window's read replaces them), so they are rejected with the reason;
 * a merge loads them by key.
 */
function parseRead(
  env: SliceEnvironment,
  job: StreamJob,
  planned: PlannedSlice,
  requests: readonly ExtractedRequest[],
  contract: SliceContract,
): ParsedRead {
  const { stream } = job;
  const read: ParsedRows = emptyParsedRows();
  const outsideCheck =
    planned.slice.kind === "window" && stream.table.windowColumn !== undefined
      ? outsideWindowCheck(stream.table.windowColumn, planned.slice.window)
      : undefined;
  const rejectOutside = stream.table.writeMode === "replace_window" ? outsideCheck : undefined;
  const refuse = bothRefusals(rejectOutside, contractRefusal(stream, contract.contract, contract.evolved));
  for (const part of requests) parseRows(stream, part.rows, part.request.implied, env.secrets, read, refuse);
  const { invalid, outside } = splitOutside(
    read.rows,
    read.rejects,
    outsideCheck,
    rejectOutside !== undefined,
  );
  const rejected = rejectOutside !== undefined;
  const fields = contract.contract === "discard" ? unknownFieldsOf(read.rows) : [];
  const contracted = contractRows(contract.contract, read.rows, contract.evolved);
  return {
    parsed: { ...read, rows: contracted.rows },
    contract,
    discarded: { fields, rows: contracted.discardedRows },
    judged: read.rows,
    tracked: lookupStates(stream, requests),
    invalid,
    outside: { count: outside, rejected },
  };
}

/** One refusal of two (the first's issue when both refuse); undefined when neither is given. */
function bothRefusals(
  first: ((row: LoadRow) => RowIssue | null) | undefined,
  second: ((row: LoadRow) => RowIssue | null) | undefined,
): ((row: LoadRow) => RowIssue | null) | undefined {
  if (first === undefined || second === undefined) return first ?? second;
  return (row) => first(row) ?? second(row);
}

/** What a slice's read was: its requests, rows fetched, when it started and counts as made, and the answer's quality. */
interface ReadFacts {
  readonly http: RequestTally;
  readonly rowsFetched: number;
  readonly startedAt: Date;
  readonly readAt: number;
  readonly answerQuality: Readonly<Record<string, number>>;
}

/** What loading a read did: the load's counts, the hold (the read's or the load's), and whether it completed the window. */
interface LoadedRead {
  readonly result: Awaited<ReturnType<typeof loadSlice>>;
  readonly hold: LoadHold | undefined;
  readonly completesWindow: boolean;
  readonly quality: Readonly<Record<string, number>>;
}

/**
 * Loads a parsed read (see loadSlice), held when its rejects, rows outside the window or shrink
 * say so; a window completes when nothing holds it and the read settles it. From here on the
 * window's data is complete: it is loaded even if an interruption arrives now.
 */
async function loadRead(
  env: SliceEnvironment,
  job: StreamJob,
  planned: PlannedSlice,
  read: ParsedRead,
  facts: ReadFacts,
): Promise<LoadedRead> {
  const { stream } = job;
  const { parsed, outside } = read;
  const label = sliceLabel(planned.slice);
  const held = await holdOf({
    warehouse: env.warehouse,
    stream,
    account: job.account.name,
    slice: planned.slice,
    label,
    rows: read.judged,
    rejects: parsed.rejects,
    invalid: read.invalid,
    outside,
    settings: job.settings,
    accepted: env.accepted,
    warn: (message) =>
      env.log.warn(
        { account: job.account.name, stream: stream.name, window: label, outside: outside.count },
        message,
      ),
  });
  const completesWindow =
    held === undefined &&
    planned.complete &&
    planned.slice.kind === "window" &&
    settledBy(facts.readAt, job.settings.settleHours)(planned.slice.window.end);
  const settledWindow = held === undefined ? settledWindowGuard(env, job, planned, parsed) : undefined;
  const quality = {
    ...countQuality(stream, parsed.rows),
    ...facts.answerQuality,
    ...(outside.count > 0 ? { [OUTSIDE_WINDOW]: outside.count } : {}),
    ...(read.discarded.rows > 0 ? { [FIELDS_DISCARDED]: read.discarded.rows } : {}),
  };
  const result = await loadSlice(
    env.warehouse,
    {
      stream,
      account: job.account.name,
      runId: env.runId,
      extractedAt: facts.startedAt,
      slice: planned.slice,
      rows: parsed.rows,
      // Rows outside the window are in `rows` only when they were not rejected for it (a merge).
      rowsOutsideWindow: outside.rejected ? 0 : outside.count,
      rejects: parsed.rejects,
      stats: {
        requests: facts.http.requests,
        retries: facts.http.retries,
        throttled: facts.http.throttled,
        rowsFetched: facts.rowsFetched,
        startedAt: facts.startedAt,
      },
      completeWindow: completesWindow,
      keepsFrom: retentionHorizon(env.retention, stream.table, env.today),
      ...(held === undefined ? {} : { held }),
      ...(settledWindow === undefined ? {} : { settledWindow }),
      quality,
      readAt: new Date(facts.readAt),
      children: (stream.children ?? []).map((child) => ({
        stream: child,
        rows: parsed.children.get(child.name) ?? [],
      })),
      ...(read.tracked === undefined ? {} : { tracked: read.tracked }),
      fence: (client) => env.locks.fence(client, { account: job.account.name, stream: stream.name }),
      writtenKeys: job.writtenKeys,
    },
    { log: env.log, statementTimeoutMs: env.loadStatementTimeoutMs },
  );
  // A read that would have deleted rows of a settled window without confirmation was held instead.
  return { result, hold: held ?? result.held, completesWindow, quality };
}

/**
 * A loaded read in the job's tally, the log (quality counts loaded as they are, new fields, a
 * hold's line) and the progress.
 */
async function tallyLoaded(
  env: SliceEnvironment,
  job: StreamJob,
  planned: PlannedSlice,
  read: ParsedRead,
  loaded: LoadedRead & ReadFacts,
): Promise<void> {
  const { tally, stream } = job;
  const { result, hold, http, quality } = loaded;
  const label = sliceLabel(planned.slice);
  const completed = loaded.completesWindow && hold === undefined;
  tally.windowsLoaded++;
  if (completed) tally.windowsCompleted++;
  tally.requests += http.requests;
  tally.throttled += http.throttled;
  tally.rowsFetched += loaded.rowsFetched;
  tally.inserted += result.inserted;
  tally.updated += result.updated;
  tally.unchanged += result.unchanged;
  tally.deleted += result.deleted;
  tally.rejected += result.rejected;
  for (const [name, n] of Object.entries(quality)) tally.quality[name] = (tally.quality[name] ?? 0) + n;
  for (const update of read.tracked?.updates ?? [])
    tally.lookups[update.state] = (tally.lookups[update.state] ?? 0) + 1;
  // Rows outside the window have their own line (above, or the held window's), discarded fields
  // theirs (below); a held read loaded nothing.
  const { [OUTSIDE_WINDOW]: _outside, [FIELDS_DISCARDED]: _discarded, ...loadedAsTheyAre } = quality;
  if (hold === undefined && Object.keys(loadedAsTheyAre).length > 0) {
    env.log.warn(
      { account: job.account.name, stream: stream.name, window: label, quality: loadedAsTheyAre },
      `${describeQuality(stream, loadedAsTheyAre)}; loaded as they are (nulls kept)`,
    );
  }
  // A held read reports its new fields too: a renamed field is a schema change either way.
  await reportUnknownFields(env, job, label, read);
  if (hold !== undefined) {
    tally.windowsHeld++;
    if (tally.errors.length < MAX_ERRORS_KEPT) tally.errors.push(hold.message);
    env.log.error({ account: job.account.name, stream: stream.name, window: label }, hold.message);
  }
  env.progress.windowDone(job.id, {
    window: label,
    status: hold === undefined ? "succeeded" : "failed",
    rows: read.parsed.rows.length,
    rejected: result.rejected,
    requests: http.requests,
    completed,
    ...(hold === undefined ? {} : { error: hold.message }),
  });
}

/**
 * The guard of a read of a window that was settled (or re-opened after settling): any stored row
 * it would delete needs `--accept-shrink` (see settledDeletionHold), and a re-opened merge window's
 * read also removes the rows the platform no longer lists there, unless it rejected rows (a
 * rejected row's stored copy is not vanished: it stays, and the next re-count sees the window
 * again). Undefined for other reads, and for streams whose reads never delete a window's rows.
 */
function settledWindowGuard(
  env: SliceEnvironment,
  job: StreamJob,
  planned: PlannedSlice,
  parsed: ParsedRows,
): SettledWindowGuard | undefined {
  const { stream } = job;
  if (planned.settled !== true || planned.slice.kind !== "window") return undefined;
  const removeUnlisted =
    stream.table.writeMode === "merge" && planned.reopened === true && parsed.rejects.length === 0;
  if (stream.table.writeMode !== "replace_window" && !removeUnlisted) return undefined;
  const window = planned.slice.window;
  const place = {
    account: job.account.name,
    stream: stream.name,
    window: sliceLabel(planned.slice),
    windowStart: window.start,
  };
  const accepted = isAccepted(env.accepted.shrink, { ...place, windowStart: window.start });
  return {
    removeUnlisted,
    hold: (counts) =>
      settledDeletionHold(place, { ...counts, listed: parsed.rows.length }, accepted) ?? undefined,
  };
}

/**
 * Records the fields of the slice's rows (and its child rows) that no schema declares, and reports
 * those no run saw before: one warning each, and the run summary (the tally's `newFields`). A
 * failure to record them is a warning: the window's data is already loaded.
 */
async function reportUnknownFields(
  env: SliceEnvironment,
  job: StreamJob,
  window: string,
  read: ParsedRead,
): Promise<void> {
  reportAddedColumns(env, job, window, read);
  const { parsed, discarded } = read;
  const tables = [
    { stream: job.stream.name, fields: [...unknownFieldsOf(parsed.rows), ...discarded.fields] },
    ...[...parsed.children.entries()].map(([stream, rows]) => ({ stream, fields: unknownFieldsOf(rows) })),
  ];
  for (const { stream, fields } of tables) {
    if (fields.length === 0) continue;
    const place = { runId: env.runId, account: job.account.name, stream, window };
    const fate =
      stream === job.stream.name && discarded.fields.length > 0 ? { fate: "discarded" as const } : {};
    try {
      for (const fresh of await recordUnknownFields(env.warehouse.db, place, fields)) {
        const field: NewField = { ...fresh, stream, account: job.account.name, window, ...fate };
        job.tally.newFields.push(field);
        env.log.warn(
          { account: job.account.name, stream, window, field: field.field, type: field.exampleType },
          describeNewField(field),
        );
      }
    } catch (error) {
      env.log.warn(
        { account: job.account.name, stream, window, error: describeError(error) },
        "could not record the fields the schema does not know",
      );
    }
  }
}

/**
 * Reports the columns the slice's `evolve` contract added (recorded in `etl.schema_changes` when
 * added): one warning each and the run summary, like a new field's.
 */
function reportAddedColumns(env: SliceEnvironment, job: StreamJob, window: string, read: ParsedRead): void {
  for (const change of read.contract.added) {
    const carrying = read.parsed.rows.filter((row) => row.columns[change.field] != null).length;
    const field: NewField = {
      field: change.field,
      exampleType: EVOLVED_JSON_TYPES[change.columnType],
      rows: carrying,
      stream: job.stream.name,
      account: job.account.name,
      window,
      fate: { column: `${job.stream.table.name}.${change.field}`, columnType: change.columnType },
    };
    job.tally.newFields.push(field);
    env.log.warn(
      {
        account: job.account.name,
        stream: field.stream,
        window,
        field: field.field,
        type: change.columnType,
      },
      describeNewField(field),
    );
  }
}

/** The new states of a lookup slice's ids, from what the platform answered for each (undefined for other streams). */
function lookupStates(
  stream: StreamDefinition,
  requests: readonly ExtractedRequest[],
): { kind: string; updates: TrackedUpdate[] } | undefined {
  if (stream.lookup === undefined) return undefined;
  const updates: TrackedUpdate[] = [];
  for (const part of requests) {
    if (part.request.lookupId === undefined || part.state === undefined) continue;
    updates.push({
      id: part.request.lookupId,
      state: part.state,
      details: { source: part.request.implied.source ?? "call" },
    });
  }
  return { kind: stream.lookup.trackedKind, updates };
}

/** "4 answered calls with a per-minute rate and a duration but no charge" for a slice's quality counts. */
export function describeQuality(stream: StreamDefinition, quality: Readonly<Record<string, number>>): string {
  const checks = [
    ...(stream.qualityChecks ?? []),
    ...(stream.answer.kind === "pages" ? (stream.answer.checks ?? []) : []),
  ];
  return Object.entries(quality)
    .map(([name, n]) => `${n} ${checks.find((c) => c.name === name)?.description ?? name}`)
    .join(", ");
}

/** What a failed slice had done: its requests, rows fetched, start, and the signal it ran under. */
interface FailedSliceStats {
  readonly http: RequestTally;
  readonly rowsFetched: number;
  readonly startedAt: Date;
  readonly signal: AbortSignal;
}

/**
 * A slice that threw: a refused key stops the account, a missing permission skips the stream
 * (recorded once, so `status` says why), an interruption leaves it not run, anything else fails
 * the window (recorded with its reason).
 */
async function onSliceError(
  env: SliceEnvironment,
  job: StreamJob,
  planned: PlannedSlice,
  error: unknown,
  stats: FailedSliceStats,
): Promise<void> {
  const { tally } = job;
  if (error instanceof AuthError) {
    if (!job.accountAbort.signal.aborted) {
      job.accountAbort.abort(error);
      env.log.error({ account: job.account.name }, error.message);
    }
    tally.windowsNotRun++;
    return;
  }
  if (error instanceof PermissionError) return skipStream(env, job, planned, error, stats);
  if (stats.signal.aborted && !(error instanceof LockHeldError)) {
    // Interrupted, or a sibling slice stopped the stream/account: nothing was written, nothing to record.
    tally.windowsNotRun++;
    return;
  }
  tally.windowsFailed++;
  const label = sliceLabel(planned.slice);
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
  await recordFailedSlice(env.warehouse, {
    ...sliceIdentity(env, job, planned),
    stats: sliceStatsOf(stats),
    error,
  }).catch((recordError: unknown) =>
    env.log.error({ window: label, error: describeError(recordError) }, "could not record the failed window"),
  );
}

/** A slice's key in etl.run_slices. */
function sliceIdentity(env: SliceEnvironment, job: StreamJob, planned: PlannedSlice) {
  return { runId: env.runId, account: job.account.name, stream: job.stream.name, slice: planned.slice };
}

function sliceStatsOf(stats: FailedSliceStats) {
  return {
    requests: stats.http.requests,
    retries: stats.http.retries,
    throttled: stats.http.throttled,
    rowsFetched: stats.rowsFetched,
    startedAt: stats.startedAt,
  };
}

/**
 * A stream the key may not read (or a product the account lacks): the stream stops, once, with a
 * line saying why (a warning for a product not provisioned), and one `skipped` record tells
 * `status` why the stream has no data for this account.
 */
async function skipStream(
  env: SliceEnvironment,
  job: StreamJob,
  planned: PlannedSlice,
  error: PermissionError,
  stats: FailedSliceStats,
): Promise<void> {
  job.tally.windowsNotRun++;
  if (job.streamAbort.signal.aborted) return;
  job.streamAbort.abort(error);
  const product = job.stream.product;
  const message = product === undefined ? error.message : notProvisionedMessage(job, product, error);
  job.tally.errors.push(message);
  if (product === undefined) env.log.error({ account: job.account.name, stream: job.stream.name }, message);
  else env.log.warn({ account: job.account.name, stream: job.stream.name }, message);
  env.progress.windowDone(job.id, {
    window: sliceLabel(planned.slice),
    status: "skipped",
    rows: 0,
    rejected: 0,
    requests: 0,
    completed: false,
    error: message,
  });
  const record = { status: "skipped" as const, stats: sliceStatsOf(stats), error: message };
  await env.warehouse.db
    .executeQuery(sliceRecordQuery(env.warehouse.db, sliceIdentity(env, job, planned), record))
    .catch((recordError: unknown) =>
      env.log.warn({ error: describeError(recordError) }, "could not record the skipped stream"),
    );
}

/** The final summary of a job once all its slices ran. */
export function summarize(job: StreamJob): StreamSummary {
  const { tally } = job;
  let status: StreamOutcome = "succeeded";
  const unfinished = tally.windowsLoaded + tally.windowsFailed < tally.windowsPlanned;
  // Every planned window was loaded, failed or not run: anything else is a bug, never a success.
  const unaccounted = tally.windowsPlanned - tally.windowsLoaded - tally.windowsFailed - tally.windowsNotRun;
  if (unaccounted > 0) {
    tally.windowsFailed += unaccounted;
    tally.errors.push(`${unaccounted} planned window(s) were never run`);
  }
  const stopped = job.accountAbort.signal.reason;
  if (stopped instanceof AuthError && unfinished)
    status = stopped instanceof UnreachableHostError ? "unreachable" : "auth_failed";
  else if (job.streamAbort.signal.aborted)
    status =
      job.stream.product !== undefined && job.streamAbort.signal.reason instanceof PermissionError
        ? "not_provisioned"
        : "skipped";
  else if (tally.windowsFailed > 0 || tally.windowsHeld > 0) status = "failed";
  else if (tally.windowsNotRun > 0) status = "interrupted";
  const errors =
    status === "auth_failed" || status === "unreachable"
      ? [stoppedByAuth(job.stream.name, stopped as AuthError), ...tally.errors]
      : tally.errors;
  return { ...tally, status, errors };
}

/**
 * The one line saying a product is missing: what the platform answered, that nothing was lost
 * (no id changed state), and the two ways to fix it.
 */
export function notProvisionedMessage(job: StreamJob, product: string, error: PermissionError): string {
  const said = error.context.platformMessage === undefined ? "" : ` "${error.context.platformMessage}"`;
  const where = `${error.context.method ?? "GET"} ${error.context.path ?? ""}`.trim();
  return (
    `account ${job.account.name}, stream ${job.stream.name}: not provisioned: ${product} is not enabled for this account ` +
    `(403${said} on ${where}); nothing was loaded and nothing is lost (its ids are asked again once it is enabled); ` +
    `enable ${product} for the account, or remove "${job.stream.name}" from the account's streams`
  );
}

/**
 * Why a stream stopped when its account's key was refused or its host could not be reached. The
 * error came from whichever request of the account met it first, so each stream names itself
 * before the shared message.
 */
export function stoppedByAuth(stream: string, error: AuthError): string {
  return `stream ${stream} stopped: ${error.message}`;
}
