/**
 * Reads every row of one slice from the platform: each request of the slice is paged to the end
 * (a list ends with a short or empty page, never on the platform's `total` alone: see
 * PagePaginator) through the account's client, then checked for completeness: the distinct keys
 * fetched must reach the `pagination.total` the platform reported (more is a total the platform
 * under-reported: every row is kept, counted and logged). Rows can move while we page (late arrivals, a short
 * page, a row served twice), so a disagreeing request is read again, a bounded number of times,
 * keeping every distinct row any read saw, before the slice fails with both numbers in the message.
 * A list that ends on a page boundary is read once more with another page size before it counts
 * as complete (see confirmPageBoundary).
 */

import type { z } from "zod";
import { damagedPages } from "../../api/damaged-pages.js";
import { type FetchAllPagesResult, fetchAllPages } from "../../api/fetch-all-pages.js";
import type { ApiClient, RequestTally } from "../../api/http-client.js";
import { boundaryCheckPerPage, type Page, PaginationError } from "../../api/page-paginator.js";
import { type ErrorContext, SliceError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import type { Sleep } from "../../core/ports.js";
import { fixedDelay, type RetryLoopPolicy, retryLoop } from "../../core/retry.js";
import type { Implied } from "../../streams/columns.js";
import { rowIdentityOf } from "../../streams/row-identity.js";
import type {
  RequestContext,
  Slice,
  StreamAnswer,
  StreamDefinition,
  StreamRequest,
  TrackedState,
} from "../../streams/stream-definition.js";
import { type PlatformReading, parseDateHeader } from "./platform-clock.js";

/** Reads of one request before a completeness disagreement fails the slice. */
export const DEFAULT_EXTRACT_ATTEMPTS = 4;

/** Quality count of a slice: distinct rows read past the `pagination.total` the platform reported. */
export const ROWS_BEYOND_TOTAL = "rows_beyond_reported_total";

/** The answer to one request of a slice, complete by the platform's own count. */
export interface ExtractedRequest {
  readonly request: StreamRequest;
  /** Distinct rows as served (malformed ones included), the latest read's copy of each. */
  readonly rows: readonly unknown[];
  readonly reportedTotal: number;
  readonly distinctKeys: number;
  /** Distinct rows beyond `reportedTotal` (an under-reported total; the pages past it were read). */
  readonly beyondTotal?: number;
  /** Reads of the whole request it took (1 unless the first read disagreed with the total). */
  readonly attempts: number;
  /** For a lookup: what the answer means for its id (pending, final, none, ...). */
  readonly state?: TrackedState;
}

/** Everything one slice fetched. */
export interface ExtractedSlice {
  readonly requests: readonly ExtractedRequest[];
  /** Page requests issued (retries of a single page inside the client not included). */
  readonly pageRequests: number;
  readonly rowsFetched: number;
  /** The earliest platform clock (`Date` header) any answer of the slice gave; undefined without one. */
  readonly platformClock: PlatformReading | undefined;
  /**
   * Distinct pages per answer check of the stream (see AnswerCheck) that had its problem, and
   * {@link ROWS_BEYOND_TOTAL}: rows past an under-reported total; checks with nothing are left out.
   */
  readonly answerQuality: Readonly<Record<string, number>>;
}

/** Inputs of {@link extractSlice}. */
export interface ExtractSliceOptions {
  readonly client: ApiClient;
  readonly stream: StreamDefinition;
  readonly slice: Slice;
  /** What the requests depend on besides the slice: revision, configured ids, today (discoveries are added here). */
  readonly requestContext: Omit<RequestContext, "discovered">;
  readonly perPage: number;
  /** Pages of one request in flight at once (the key's concurrency). */
  readonly concurrency: number;
  readonly attempts?: number;
  readonly signal?: AbortSignal;
  readonly log?: Logger;
  /** Account and window, for messages. */
  readonly context: ErrorContext;
  /** Called after every page request (progress). */
  readonly onPage?: () => void;
  /** Every HTTP request of the slice (retries included) and its retries, counted by the client. */
  readonly tally?: RequestTally;
  /** The local clock, to time the platform's `Date` headers (default Date.now). */
  readonly now?: () => number;
}

/** What the answers of one slice showed besides their rows: the earliest platform clock, flagged pages. */
interface ClockReadings {
  earliest: PlatformReading | undefined;
  /** Per answer check, the pages (request and page number) that had its problem, each counted once however often read. */
  readonly flagged: Map<string, Set<string>>;
}

/** The body of a list answer did not have the shape the stream expects. */
export class EnvelopeError extends SliceError {}

/**
 * Reads every request of the slice (after the stream's discovery, when it has one); throws
 * SliceError (or the client's errors: AuthError, PermissionError).
 */
export async function extractSlice(options: ExtractSliceOptions): Promise<ExtractedSlice> {
  const counter = { pages: 0 };
  const readings: ClockReadings = { earliest: undefined, flagged: new Map() };
  // The requests of a slice (CDRs: placed and received) are read side by side within the budget.
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const inner = { ...options, signal };
  const readAll = (requests: readonly StreamRequest[], answer: StreamAnswer) =>
    Promise.all(
      requests.map((request) =>
        extractRequest(inner, request, answer, counter, readings).catch((error: unknown) => {
          controller.abort(error);
          throw error;
        }),
      ),
    );
  const { stream } = options;
  const discovered: Implied[] = [];
  if (stream.discovery) {
    const listed = await readAll(stream.discovery.requests(options.requestContext), stream.discovery.answer);
    for (const part of listed) {
      for (const row of part.rows) {
        const values = stream.discovery.values(row, part.request.implied);
        if (values !== null) discovered.push(values);
      }
    }
  }
  const requests = await readAll(
    stream.requests(options.slice, { ...options.requestContext, discovered }),
    stream.answer,
  );
  const beyondTotal = requests.reduce((sum, r) => sum + (r.beyondTotal ?? 0), 0);
  return {
    requests,
    pageRequests: counter.pages,
    rowsFetched: requests.reduce((sum, r) => sum + r.rows.length, 0),
    platformClock: readings.earliest,
    answerQuality: {
      ...Object.fromEntries([...readings.flagged].map(([name, pages]) => [name, pages.size])),
      ...(beyondTotal > 0 ? { [ROWS_BEYOND_TOTAL]: beyondTotal } : {}),
    },
  };
}

/**
 * Re-reads of a list request whose answer disagrees with itself (pages that disagree, a broken
 * envelope) or with its reported total: at once, with no pause between reads,
 * {@link DEFAULT_EXTRACT_ATTEMPTS} reads in all unless the slice says otherwise.
 */
const EXTRACT_REREAD: RetryLoopPolicy = {
  maxAttempts: DEFAULT_EXTRACT_ATTEMPTS,
  delayMs: fixedDelay(0),
  retryable: (error) =>
    error instanceof IncompleteRead || error instanceof PaginationError || error instanceof EnvelopeError,
};

/** Re-reads follow each other with no timer in between. */
const rereadAtOnce: Sleep = async () => {};

/** A read whose distinct rows fell short of the platform's reported total (read again). */
class IncompleteRead extends Error {
  constructor(
    readonly fetched: number,
    readonly total: number,
    readonly anomalies: readonly string[],
  ) {
    super(`fetched ${fetched} distinct rows but the platform reported total ${total}`);
  }
}

async function extractRequest(
  options: ExtractSliceOptions,
  request: StreamRequest,
  answer: StreamAnswer,
  counter: { pages: number },
  readings: ClockReadings,
): Promise<ExtractedRequest> {
  const reader: RequestReader = { options, request, answer, counter, readings };
  if (answer.kind === "whole") return extractWhole(reader);
  const maxAttempts = Math.max(1, options.attempts ?? DEFAULT_EXTRACT_ATTEMPTS);
  const context = { ...options.context, stream: options.stream.name };
  // Rows seen by any read, by identity: a row skipped by one read (rows shifting under the reader,
  // a short page) is usually served by another; nothing is ever removed from this platform's lists.
  const seen = new Map<string, unknown>();
  const warn = (attempt: number, error: unknown) => warnReread(options.log, { ...context, attempt }, error);
  return retryLoop(
    async (attempt) => {
      const result = await readList(reader, options.perPage, seen);
      if (seen.size < result.reportedTotal)
        throw new IncompleteRead(seen.size, result.reportedTotal, result.anomalies);
      if (result.endedOnPageBoundary) await confirmPageBoundary(reader, result, seen);
      return completeRequest(reader, result, seen, attempt);
    },
    { ...EXTRACT_REREAD, maxAttempts },
    {
      sleep: rereadAtOnce,
      signal: options.signal,
      onRetry: ({ attempt, error }) => warn(attempt, error),
      giveUp: ({ attempts, error }) => {
        warn(attempts, error);
        return new SliceError(
          `${describe(options, request)}: completeness check failed after ${maxAttempts} reads: ${(error as Error).message}`,
          context,
        );
      },
    },
  );
}

/** The warning of a read that disagreed (with its total, or its pages with each other): it is read again. */
function warnReread(
  log: Logger | undefined,
  fields: ErrorContext & { attempt: number },
  error: unknown,
): void {
  if (error instanceof IncompleteRead) {
    const { fetched, total, anomalies } = error;
    log?.warn(
      { ...fields, fetched, total, anomalies },
      "completeness check failed, reading the window again",
    );
  } else {
    log?.warn({ ...fields, error: (error as Error).message }, "pages disagree, reading the window again");
  }
}

/** A request that is answered whole: every row at once, no total to compare with, one read made distinct. */
async function extractWhole(reader: RequestReader): Promise<ExtractedRequest> {
  const { options, request, answer, counter, readings } = reader;
  counter.pages++;
  try {
    const { rows, state } = await fetchAnswer(options, request, answer, null, options.signal, readings);
    const identity = rowIdentityOf(options.stream);
    const seen = new Map(rows.map((row) => [identity(row, request.implied), row]));
    return {
      request,
      rows: [...seen.values()],
      reportedTotal: seen.size,
      distinctKeys: seen.size,
      attempts: 1,
      ...(state === undefined ? {} : { state }),
    };
  } finally {
    options.onPage?.();
  }
}

/** What reading one request needs (a list's page size aside). */
interface RequestReader {
  readonly options: ExtractSliceOptions;
  readonly request: StreamRequest;
  readonly answer: StreamAnswer;
  readonly counter: { pages: number };
  readonly readings: ClockReadings;
}

/**
 * Reads the list of `reader.request` once, `perPage` rows a page, adding every row to `seen` by
 * identity, then fetches the pages that look damaged again when the distinct rows fall short of
 * the reported total.
 */
async function readList(
  reader: RequestReader,
  perPage: number,
  seen: Map<string, unknown>,
): Promise<FetchAllPagesResult> {
  const { options, request, answer, counter, readings } = reader;
  const result = await fetchAllPages({
    fetchPage: async (page, signal) => {
      counter.pages++;
      try {
        return await fetchAnswer(options, request, answer, { page, perPage }, signal, readings);
      } finally {
        options.onPage?.();
      }
    },
    concurrency: options.concurrency,
    signal: options.signal,
    context: { ...options.context, stream: options.stream.name },
  });
  const identity = rowIdentityOf(options.stream);
  for (const row of result.rows) seen.set(identity(row, request.implied), row);
  if (seen.size < result.reportedTotal) await repairPages(reader, perPage, result, seen);
  return result;
}

/**
 * A list that ended on an empty page right after a full one (its rows an exact multiple of
 * `per_page`) looks the same whether it truly ends there or the platform stopped serving at a page
 * boundary and set its total to match (total = per_page, page 2 empty: 53 CDRs settled short). So
 * it is asked again with another page size (see boundaryCheckPerPage), whose boundaries fall
 * elsewhere: the same total and the same distinct rows confirm it; any difference is a damaged
 * answer (PaginationError: the request is read again, bounded, then its window fails unsettled).
 */
async function confirmPageBoundary(
  reader: RequestReader,
  first: FetchAllPagesResult,
  seen: Map<string, unknown>,
): Promise<void> {
  const { options, request } = reader;
  const perPage = boundaryCheckPerPage(options.perPage);
  const again = new Map<string, unknown>();
  const second = await readList(reader, perPage, again);
  let unseen = 0;
  for (const key of again.keys()) if (!seen.has(key)) unseen++;
  if (second.reportedTotal === first.reportedTotal && again.size === seen.size && unseen === 0) {
    for (const [key, row] of again) seen.set(key, row);
    return;
  }
  throw new PaginationError(
    `${describe(options, request)}: the list ended on a page boundary (total ${first.reportedTotal}, ` +
      `${seen.size} distinct rows in ${first.pages} pages of ${first.perPage}, the last one empty), ` +
      `but asked again with per_page ${perPage} the platform reports total ${second.reportedTotal} and serves ` +
      `${again.size} distinct rows${unseen > 0 ? ` (${unseen} the first read did not have)` : ""}: ` +
      "its answers depend on the page size, the list cannot be trusted to end there",
    { ...options.context, stream: options.stream.name },
  );
}

/** The answer to a request whose distinct rows reached the reported total (more: an under-reported total, logged). */
function completeRequest(
  reader: RequestReader,
  result: FetchAllPagesResult,
  seen: ReadonlyMap<string, unknown>,
  attempt: number,
): ExtractedRequest {
  const { options, request } = reader;
  const beyondTotal = seen.size - result.reportedTotal;
  if (beyondTotal > 0) {
    // The list was read to its short (or empty) last page: the rows are there, the total is wrong.
    options.log?.warn(
      {
        ...options.context,
        stream: options.stream.name,
        total: result.reportedTotal,
        fetched: seen.size,
        pages: result.pages,
      },
      `${describe(options, request)}: the platform reported total ${result.reportedTotal} but served ${seen.size} distinct rows ` +
        `(read to its last, short page: ${result.pages} pages); every row is loaded`,
    );
  }
  return {
    request,
    rows: [...seen.values()],
    reportedTotal: result.reportedTotal,
    distinctKeys: seen.size,
    ...(beyondTotal > 0 ? { beyondTotal } : {}),
    attempts: attempt,
  };
}

/** Rounds of fetching only the damaged pages of a read before the whole request is read again. */
const PAGE_REPAIR_ROUNDS = 2;

/**
 * Fetches again, alone, the pages of a read that look damaged (short, or shifted so they repeat a
 * row of another page), adding their rows to `seen`, until the distinct rows match the reported
 * total or the rounds run out. Much cheaper than reading the whole list again for one bad page.
 */
async function repairPages(
  reader: RequestReader,
  perPage: number,
  read: FetchAllPagesResult,
  seen: Map<string, unknown>,
): Promise<void> {
  const { options, request, answer, counter, readings } = reader;
  const identity = rowIdentityOf(options.stream);
  const key = (row: unknown) => identity(row, request.implied);
  const rowsByPage = new Map(read.rowsByPage);
  const shape = { total: read.reportedTotal, perPage: read.perPage };
  for (let round = 0; round < PAGE_REPAIR_ROUNDS && seen.size !== read.reportedTotal; round++) {
    const pages = damagedPages(rowsByPage, shape, key);
    if (pages.length === 0) return;
    options.log?.debug(
      {
        ...options.context,
        stream: options.stream.name,
        pages,
        fetched: seen.size,
        total: read.reportedTotal,
      },
      "fetching damaged pages again",
    );
    await Promise.all(
      pages.map(async (page) => {
        counter.pages++;
        try {
          const again = await fetchAnswer(
            options,
            request,
            answer,
            { page, perPage },
            options.signal,
            readings,
          );
          rowsByPage.set(page, again.rows);
          for (const row of again.rows) seen.set(key(row), row);
        } finally {
          options.onPage?.();
        }
      }),
    );
  }
}

/**
 * One GET of `request` (page `paging.page` of `paging.perPage` rows, or the whole answer when `paging` is null), read with
 * `answer`: the rows it holds and, for a page, its pagination (a valid empty answer without one
 * counts as an empty list). Notes the platform's clock from the `Date` header. For a lookup stream,
 * a 404 or a 202 is an answer about the id (`state`), not a failure.
 */
async function fetchAnswer(
  options: ExtractSliceOptions,
  request: StreamRequest,
  answer: StreamAnswer,
  paging: { readonly page: number; readonly perPage: number } | null,
  signal: AbortSignal | undefined,
  readings: ClockReadings,
): Promise<Page & { readonly state?: TrackedState }> {
  const { stream } = options;
  const page = paging?.page ?? null;
  const perPage = paging?.perPage ?? options.perPage;
  const query = paging === null ? request.query : { ...request.query, page, per_page: perPage };
  const response = await options.client.getJson(request.path, query, {
    stream: stream.name,
    permission: stream.permission,
    signal,
    tally: options.tally,
    ...(answer.kind === "pages" && answer.exactNumbers !== undefined
      ? { exactNumbers: answer.exactNumbers }
      : {}),
  });
  const platformMs = parseDateHeader(response.headers.date);
  if (
    platformMs !== undefined &&
    (readings.earliest === undefined || platformMs < readings.earliest.platformMs)
  ) {
    readings.earliest = { platformMs, receivedAt: (options.now ?? Date.now)() };
  }
  const where = `${describe(options, request)}${page === null ? "" : ` page ${page}`}`;
  const context = { ...options.context, stream: stream.name, ...(page === null ? {} : { page }) };
  const empty = { current_page: page ?? 1, per_page: perPage, total: 0, total_pages: 0 };
  if (stream.lookup !== undefined) {
    const state = stream.lookup.state(response.status, response.body);
    // Only a 200 carries the id's rows; a 202 (still pending) or a 404 (nothing) carries none.
    if (response.status !== 200) return { rows: [], pagination: empty, state };
    const parsed = answer.envelope.safeParse(response.body);
    if (!parsed.success) throw envelopeError(where, parsed.error, context);
    return { rows: answer.rows(parsed.data), pagination: empty, state };
  }
  if (response.status === 404) {
    const hint = stream.revisionDependent
      ? `; this path belongs to API revision ${options.requestContext.revision}: if the platform serves the other one, set api_revision for this account (auto asks the platform)`
      : "";
    throw new SliceError(`${where}: the platform answered 404 Not Found${hint}`, { ...context, status: 404 });
  }
  const parsed = answer.envelope.safeParse(response.body);
  if (!parsed.success) throw envelopeError(where, parsed.error, context);
  const rows = answer.rows(parsed.data);
  if (answer.kind === "pages") {
    for (const check of answer.checks ?? []) {
      if (!check.test(parsed.data)) continue;
      const pages = readings.flagged.get(check.name) ?? new Set<string>();
      pages.add(where);
      readings.flagged.set(check.name, pages);
    }
  }
  // A valid empty answer (invoices: `is_empty: true`) may carry no pagination.
  const pagination = answer.kind === "pages" ? (answer.pagination(parsed.data) ?? empty) : empty;
  return { rows, pagination };
}

/** The error of an answer whose envelope does not have the shape the stream expects. */
function envelopeError(where: string, error: z.ZodError, context: ErrorContext): EnvelopeError {
  const issue = error.issues[0];
  const what = issue ? `${issue.path.join(".") || "(answer)"}: ${issue.message}` : "unexpected shape";
  return new EnvelopeError(`${where}: the answer does not have the expected shape (${what})`, context);
}

/**
 * Distinct rows among `rows` by the stream's row identity (see row-identity.ts): a row missing a
 * key (a malformed row) is identified by its content, so it still counts toward the total.
 */
export function countDistinctKeys(
  stream: StreamDefinition,
  rows: readonly unknown[],
  implied: Readonly<Record<string, string>>,
): number {
  const identity = rowIdentityOf(stream);
  return new Set(rows.map((row) => identity(row, implied))).size;
}

function describe(options: ExtractSliceOptions, request: StreamRequest): string {
  const parts = [
    options.context.account === undefined ? undefined : `account ${options.context.account}`,
    `stream ${options.stream.name}`,
    options.context.window === undefined ? undefined : `window ${options.context.window}`,
  ].filter((p) => p !== undefined);
  const query = Object.entries(request.query)
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  return `${parts.join(", ")}: GET ${request.path}${query ? `?${query}` : ""}`;
}
