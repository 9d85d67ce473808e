/**
 * Reads every row of one slice from the platform: each request of the slice is paged to the end
 * through the account's client, then checked for completeness: the distinct keys fetched must equal
 * the `pagination.total` the platform reported. Rows can move while we page (late arrivals, a short
 * page, a row served twice), so a disagreeing request is read again, a bounded number of times,
 * keeping every distinct row any read saw, before the slice fails with both numbers in the message.
 */
import { createHash } from "node:crypto";
import { fetchAllPages } from "../api/fetch-all-pages.js";
import type { ApiClient, RequestTally } from "../api/http-client.js";
import { type Page, PaginationError } from "../api/page-paginator.js";
import { type ErrorContext, SliceError } from "../errors.js";
import type { Logger } from "../log.js";
import { paginationSchema } from "../platform/common.js";
import type { Slice, StreamDefinition, StreamRequest } from "../streams/stream-definition.js";

/** Reads of one request before a completeness disagreement fails the slice. */
export const DEFAULT_EXTRACT_ATTEMPTS = 4;

/** The answer to one request of a slice, complete by the platform's own count. */
export interface ExtractedRequest {
  readonly request: StreamRequest;
  /** Distinct rows as served (malformed ones included), the latest read's copy of each. */
  readonly rows: readonly unknown[];
  readonly reportedTotal: number;
  readonly distinctKeys: number;
  /** Reads of the whole request it took (1 unless the first read disagreed with the total). */
  readonly attempts: number;
}

/** Everything one slice fetched. */
export interface ExtractedSlice {
  readonly requests: readonly ExtractedRequest[];
  /** Page requests issued (retries of a single page inside the client not included). */
  readonly pageRequests: number;
  readonly rowsFetched: number;
}

/** Inputs of {@link extractSlice}. */
export interface ExtractSliceOptions {
  readonly client: ApiClient;
  readonly stream: StreamDefinition;
  readonly slice: Slice;
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
}

/** The body of a list answer did not have the shape the stream expects. */
export class EnvelopeError extends SliceError {}

/** Reads every request of the slice; throws SliceError (or the client's errors: AuthError, PermissionError). */
export async function extractSlice(options: ExtractSliceOptions): Promise<ExtractedSlice> {
  const counter = { pages: 0 };
  // The requests of a slice (CDRs: placed and received) are read side by side within the budget.
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const requests = await Promise.all(
    options.stream.requests(options.slice).map((request) =>
      extractRequest({ ...options, signal }, request, counter).catch((error: unknown) => {
        controller.abort(error);
        throw error;
      }),
    ),
  );
  return {
    requests,
    pageRequests: counter.pages,
    rowsFetched: requests.reduce((sum, r) => sum + r.rows.length, 0),
  };
}

async function extractRequest(
  options: ExtractSliceOptions,
  request: StreamRequest,
  counter: { pages: number },
): Promise<ExtractedRequest> {
  const maxAttempts = Math.max(1, options.attempts ?? DEFAULT_EXTRACT_ATTEMPTS);
  const context = { ...options.context, stream: options.stream.name };
  const keyFields = identityFields(options.stream);
  // Rows seen by any read, by identity: a row skipped by one read (rows shifting under the reader,
  // a short page) is usually served by another; nothing is ever removed from this platform's lists.
  const seen = new Map<string, unknown>();
  let lastProblem = "";
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    options.signal?.throwIfAborted();
    try {
      const result = await fetchAllPages({
        fetchPage: async (page, signal) => {
          counter.pages++;
          try {
            return await fetchPage(options, request, page, signal);
          } finally {
            options.onPage?.();
          }
        },
        concurrency: options.concurrency,
        signal: options.signal,
        context,
      });
      for (const row of result.rows) seen.set(rowIdentity(row, keyFields, request.implied), row);
      if (seen.size === result.reportedTotal) {
        return {
          request,
          rows: [...seen.values()],
          reportedTotal: result.reportedTotal,
          distinctKeys: seen.size,
          attempts: attempt,
        };
      }
      lastProblem = `fetched ${seen.size} distinct rows but the platform reported total ${result.reportedTotal}`;
      options.log?.warn(
        { ...context, attempt, fetched: seen.size, total: result.reportedTotal, anomalies: result.anomalies },
        "completeness check failed, reading the window again",
      );
    } catch (error) {
      if (!(error instanceof PaginationError || error instanceof EnvelopeError)) throw error;
      lastProblem = error.message;
      options.log?.warn(
        { ...context, attempt, error: error.message },
        "pages disagree, reading the window again",
      );
    }
  }
  throw new SliceError(
    `${describe(options, request)}: completeness check failed after ${maxAttempts} reads: ${lastProblem}`,
    context,
  );
}

async function fetchPage(
  options: ExtractSliceOptions,
  request: StreamRequest,
  page: number,
  signal: AbortSignal,
): Promise<Page> {
  const { stream } = options;
  const response = await options.client.getJson(
    request.path,
    { ...request.query, page, per_page: options.perPage },
    { stream: stream.name, permission: stream.permission, signal, tally: options.tally },
  );
  const where = `${describe(options, request)} page ${page}`;
  if (response.status === 404) {
    throw new SliceError(`${where}: the platform answered 404 Not Found`, {
      ...options.context,
      stream: stream.name,
      page,
      status: 404,
    });
  }
  const body = response.body as Record<string, unknown> | null;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new EnvelopeError(`${where}: expected a JSON object`, {
      ...options.context,
      stream: stream.name,
      page,
    });
  }
  const items = body[stream.itemsField];
  // A valid empty answer (invoices: `is_empty: true`) may leave out the list or its pagination.
  if (stream.isEmptyAnswer?.(body) === true && (!Array.isArray(items) || body.pagination === undefined)) {
    return {
      rows: [],
      pagination: { current_page: page, per_page: options.perPage, total: 0, total_pages: 0 },
    };
  }
  const pagination = paginationSchema.safeParse(body.pagination);
  if (!Array.isArray(items) || !pagination.success) {
    throw new EnvelopeError(
      `${where}: expected "${stream.itemsField}" (an array) and "pagination" in the answer`,
      { ...options.context, stream: stream.name, page },
    );
  }
  return { rows: items, pagination: pagination.data };
}

/**
 * Distinct rows among `rows`: by the stream's key (implied values first, then the row's own
 * fields) for merge streams, else by the row's full content. A row missing a key field (a
 * malformed row) is identified by its content, so it still counts toward the total.
 */
export function countDistinctKeys(
  stream: StreamDefinition,
  rows: readonly unknown[],
  implied: Readonly<Record<string, string>>,
): number {
  const keyFields = identityFields(stream);
  const seen = new Set<string>();
  for (const row of rows) seen.add(rowIdentity(row, keyFields, implied));
  return seen.size;
}

/** Fields that identify a raw row: the key without `_account` for merge streams, none (whole row) otherwise. */
function identityFields(stream: StreamDefinition): readonly string[] {
  return stream.writeMode === "merge" ? stream.key.filter((k) => k !== "_account") : [];
}

/** The identity of one raw row for the completeness check. */
export function rowIdentity(
  row: unknown,
  keyFields: readonly string[],
  implied: Readonly<Record<string, string>>,
): string {
  if (keyFields.length > 0 && row !== null && typeof row === "object" && !Array.isArray(row)) {
    const record = row as Record<string, unknown>;
    const values = keyFields.map((field) => implied[field] ?? record[field]);
    if (values.every((v) => v !== undefined && v !== null)) return `k:${JSON.stringify(values)}`;
  }
  return `r:${createHash("sha1")
    .update(JSON.stringify(row) ?? "undefined")
    .digest("base64")}`;
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
