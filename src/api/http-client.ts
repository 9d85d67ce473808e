/**
 * The platform's HTTP client for one account (on undici, see http-transport.ts): Bearer auth,
 * timeouts, keep-alive, retries with backoff and Retry-After, every attempt through the key's rate
 * budget, and statuses mapped by `response-outcome.ts`. Nothing it throws or logs contains the API key.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { LookupFunction } from "node:net";
import { parseJsonExact } from "@telecom-etl/platform/exact-number.js";
import {
  type ErrorContext,
  RetryableError,
  redactUrl,
  SliceError,
  UnreachableHostError,
  UsageError,
} from "../core/errors.js";
import type { KnownSecrets } from "../core/known-secrets.js";
import type { Logger } from "../core/log.js";
import { type Clock, realSleep, type Sleep, systemClock } from "../core/ports.js";
import {
  type KeepAliveConnections,
  keepAliveConnections,
  type RequestOnceOptions,
  requestOnce,
  TransportError,
} from "./http-transport.js";
import type { RateBudget } from "./rate-budget.js";
import {
  classifyResponse,
  describeRequest,
  platformMessageOf,
  type RequestContext,
} from "./response-outcome.js";
import { parseRetryAfter, type RetryPolicy, withRetry } from "./retry-policy.js";

/**
 * Connect timeout (new sockets: DNS + TCP), headers timeout (until the status and headers arrive),
 * body-idle timeout (longest silence of the body once the headers came) and total timeout (until
 * the body's last byte) of every attempt.
 */
export interface ApiTimeouts {
  readonly connectMs?: number;
  readonly headersMs?: number;
  readonly bodyIdleMs?: number;
  readonly totalMs?: number;
}

/** Everything one account's client needs; side effects (`sleep`, `clock`, `random`, `lookup`) are injectable. */
export interface ApiClientOptions {
  /** Base URL of the platform for this account, for example `https://api.example.com`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Account name as configured; appears in messages and error context. */
  readonly account: string;
  /** Env var the key came from, named in the 401 message. */
  readonly apiKeyEnvVar?: string;
  /** The rate budget of this API key, shared with every other client of the same key. */
  readonly budget?: RateBudget;
  readonly timeouts?: ApiTimeouts;
  readonly retry?: Partial<RetryPolicy>;
  readonly sleep?: Sleep;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly log?: Logger;
  /** DNS resolver for new connections; default the system's. */
  readonly lookup?: LookupFunction;
  /** Sockets kept per host; default the budget's concurrency, or 8. */
  readonly maxSockets?: number;
  /**
   * Bodies larger than this, decoded (after gzip, deflate or br) or on the wire, fail the request
   * at once, without retries. Default 64 MiB.
   */
  readonly maxBodyBytes?: number;
  /**
   * The run's secrets: the client learns its key and every secret-looking field of every answer (a
   * sub-account's `api_key`, a trunk's `access_token`, under any spelling) before anyone reads it,
   * and masks what it knows in the messages it puts in errors and logs.
   */
  readonly secrets?: KnownSecrets;
}

/** Query parameters; undefined and null values are left out. */
export type Query = Readonly<Record<string, string | number | boolean | null | undefined>>;

/**
 * What requests cost, counted by the client as they happen: every HTTP request sent (retries
 * included), how many of those were retries, and how many the platform answered 429 (throttled).
 * A caller passes one tally per unit of work (a slice) to every `getJson` of it; the client only
 * ever adds to it.
 */
export interface RequestTally {
  requests: number;
  retries: number;
  throttled: number;
}

/** A tally at zero. */
export function newRequestTally(): RequestTally {
  return { requests: 0, retries: 0, throttled: 0 };
}

/** Per-request options of {@link ApiClient.getJson}. */
export interface GetJsonOptions {
  /** Stream on whose behalf the request is made (messages and error context). */
  readonly stream?: string;
  /** Permission the stream needs, named when the platform answers 403 (for example `billing:read`). */
  readonly permission?: string;
  readonly signal?: AbortSignal;
  /** Counts each attempt when it is sent (after the rate budget let it go), and the retries among them. */
  readonly tally?: RequestTally;
  /**
   * Fields whose JSON numbers must stay exact (the ledger's `amount`): the body is parsed with
   * `parseJsonExact`, which keeps them as their source text (see packages/platform/src/exact-number.ts).
   */
  readonly exactNumbers?: readonly string[];
}

/** A 2xx (body parsed JSON, null for 204) or a 404 (body parsed if it was JSON, else the text). */
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
}

/** The platform client of one account. */
export interface ApiClient {
  readonly account: string;
  /**
   * GETs `path` (relative to the base URL, starting with `/`) and returns 2xx and 404 responses;
   * throws AuthError (401), PermissionError (403), SliceError (400/422/other 4xx, or
   * RetriesExhaustedError once retries of 429/5xx/network/timeouts/bad bodies run out).
   */
  getJson(path: string, query?: Query, options?: GetJsonOptions): Promise<ApiResponse>;
  /** Closes idle keep-alive sockets; call once the run is done. */
  close(): void;
}

/**
 * Default timeouts: 10 s to connect, 10 s until the headers (the platform answers in well under
 * 1 s), 10 s of silence in the middle of a body, 60 s for the whole response.
 */
export const DEFAULT_TIMEOUTS = {
  connectMs: 10_000,
  headersMs: 10_000,
  bodyIdleMs: 10_000,
  totalMs: 60_000,
} as const;

/** Creates the client of one account. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = parseBaseUrl(options.baseUrl);
  if (options.apiKey.trim() === "") {
    throw new UsageError(`account ${options.account}: the API key is empty`);
  }
  // Learnt, not added: the run adds its configured keys itself, and a sub-account's key fetched from
  // the platform is a learnt value (masked in messages and logs, never in a typed column).
  options.secrets?.learn(options.apiKey);
  const transport = transportOf(options);
  const attempt = attemptsOf(options, base, transport);
  return {
    account: options.account,
    // async: a URL buildUrl refuses (an appid) is a rejected promise, as every other failure.
    getJson: async (path, query = {}, requestOptions = {}) =>
      getWithRetries(options, attempt, buildUrl(base, path, query), requestOptions),
    close() {
      transport.connections.close();
    },
  };
}

/** What every request of one client shares: its settings, and its keep-alive connections. */
type Transport = Omit<RequestOnceOptions, "dispatcher" | "signal"> & {
  readonly connections: KeepAliveConnections;
};

/** One client's transport settings: timeouts (headers and body-idle never past the total), keep-alive connections, body cap, headers. */
function transportOf(options: ApiClientOptions): Transport {
  const totalMs = options.timeouts?.totalMs ?? DEFAULT_TIMEOUTS.totalMs;
  const connectMs = options.timeouts?.connectMs ?? DEFAULT_TIMEOUTS.connectMs;
  return {
    connectMs,
    totalMs,
    // Never later than the total timeout: a headers timeout past it would never fire.
    headersMs: Math.min(totalMs, options.timeouts?.headersMs ?? DEFAULT_TIMEOUTS.headersMs),
    bodyIdleMs: Math.min(totalMs, options.timeouts?.bodyIdleMs ?? DEFAULT_TIMEOUTS.bodyIdleMs),
    connections: keepAliveConnections({
      connectMs,
      maxSockets: options.maxSockets ?? options.budget?.concurrency ?? 8,
      lookup: options.lookup,
    }),
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024 * 1024,
    headers: {
      authorization: `Bearer ${options.apiKey}`,
      accept: "application/json",
      "accept-encoding": "gzip, deflate, br",
      "user-agent": "telecom-etl",
    },
  };
}

/** One attempt of a request: its answer, or the error that says whether to retry. */
type Attempt = (
  url: URL,
  request: RequestContext,
  signal: AbortSignal | undefined,
  exactNumbers: readonly string[],
) => Promise<ApiResponse>;

/**
 * The attempts of one client: each sends once (see sendOnce) and reads the answer (see readAnswer).
 * Until the host has answered once, a name that does not resolve or a refused connection is a
 * configuration error, not a blip (see unreachableReason).
 */
function attemptsOf(options: ApiClientOptions, base: URL, transport: Transport): Attempt {
  let answered = false;
  const scrub = (text: string) => {
    const scrubbed = scrubSecret(text, options.apiKey);
    return options.secrets === undefined ? scrubbed : options.secrets.maskText(scrubbed);
  };
  return async (url, request, signal, exactNumbers) => {
    let raw: Awaited<ReturnType<typeof requestOnce>>;
    try {
      raw = await requestOnce(url, { ...transport, dispatcher: transport.connections.dispatcher(), signal });
    } catch (error) {
      throw transportFailure(error, request, {
        origin: base.origin,
        answered,
        maxBodyBytes: transport.maxBodyBytes,
        scrub,
      });
    }
    answered = true;
    return readAnswer(raw, request, { exactNumbers, options, scrub });
  };
}

/** The error a request that got no answer throws: unreachable (never answered), too large (not retried), else retryable. */
function transportFailure(
  error: unknown,
  request: RequestContext,
  client: { origin: string; answered: boolean; maxBodyBytes: number; scrub: (text: string) => string },
): unknown {
  const context = errorContextOf(request);
  const unreachable = client.answered ? undefined : unreachableReason(error);
  if (unreachable !== undefined) {
    return new UnreachableHostError(
      `account ${request.account}: cannot reach ${request.origin ?? client.origin}: ${unreachable}`,
      context,
      { cause: error },
    );
  }
  if (error instanceof TransportError && error.failure === "too-large") {
    // Not transient: the same request gets the same body (a runaway page, a decompression
    // bomb); retrying would only repeat the work up to the cap. The window fails, the next run asks again.
    return new SliceError(
      `${describeRequest(request)}: ${client.scrub(error.message)}; refused, not retried ` +
        `(the cap is ${client.maxBodyBytes} bytes of decoded body; lower per_page if the platform's pages really are this large)`,
      context,
      { cause: error },
    );
  }
  if (error instanceof TransportError) {
    return new RetryableError(`${describeRequest(request)}: ${client.scrub(error.message)}`, context, {
      cause: error,
    });
  }
  return error;
}

function errorContextOf(request: RequestContext): ErrorContext {
  return { account: request.account, stream: request.stream, method: request.method, path: request.path };
}

/**
 * An answer read: its body parsed (exact numbers kept, secret-looking fields learnt), then judged by
 * status (see classifyResponse); an OK answer whose body is not JSON is retried.
 */
function readAnswer(
  raw: Awaited<ReturnType<typeof requestOnce>>,
  request: RequestContext,
  read: { exactNumbers: readonly string[]; options: ApiClientOptions; scrub: (text: string) => string },
): ApiResponse {
  const text = raw.body.toString("utf8");
  let body: unknown = null;
  let parsed = true;
  if (text.trim() !== "") {
    try {
      body = parseJsonExact(text, read.exactNumbers);
      read.options.secrets?.harvest(body);
    } catch {
      parsed = false;
      body = text;
    }
  } else {
    parsed = raw.status === 204;
  }
  const platformMessage = parsed ? platformMessageOf(body) : snippet(text);
  const message = platformMessage === undefined ? undefined : read.scrub(platformMessage);
  const now = (read.options.clock ?? systemClock).now();
  const retryAfterMs = parseRetryAfter(headerValue(raw.headers["retry-after"]), now);
  const outcome = classifyResponse(raw.status, message, request, retryAfterMs);
  if (outcome.kind === "error") throw outcome.error;
  if (outcome.kind === "ok" && !parsed) {
    throw new RetryableError(
      `${describeRequest(request)}: unparseable JSON body (HTTP ${raw.status}, ${raw.body.length} bytes)`,
      { ...errorContextOf(request), status: raw.status },
    );
  }
  return { status: raw.status, body, headers: raw.headers };
}

/**
 * A GET with retries (see withRetry), each attempt through the rate budget when the client has
 * one, counted in the caller's tally (requests, retries, 429s).
 */
function getWithRetries(
  options: ApiClientOptions,
  attempt: Attempt,
  url: URL,
  requestOptions: GetJsonOptions,
): Promise<ApiResponse> {
  const display = new URL(redactUrl(url.toString()));
  const request: RequestContext = {
    account: options.account,
    stream: requestOptions.stream,
    method: "GET",
    path: display.pathname + display.search,
    origin: display.origin,
    permission: requestOptions.permission,
    apiKeyEnvVar: options.apiKeyEnvVar,
  };
  const { signal, tally } = requestOptions;
  const exactNumbers = requestOptions.exactNumbers ?? [];
  const send = (attemptNumber: number) => async () => {
    if (tally !== undefined) {
      tally.requests++;
      if (attemptNumber > 1) tally.retries++;
    }
    try {
      return await attempt(url, request, signal, exactNumbers);
    } catch (error) {
      if (tally !== undefined && error instanceof RetryableError && error.context.status === 429)
        tally.throttled++;
      throw error;
    }
  };
  const budget = options.budget;
  const once = (n: number) => (budget === undefined ? send(n)() : budget.schedule(send(n), signal));
  return withRetry(once, {
    sleep: options.sleep ?? realSleep,
    random: options.random,
    policy: options.retry,
    signal,
    onRetry: (event) => {
      const fields = {
        account: options.account,
        stream: requestOptions.stream,
        attempt: event.attempt,
        delayMs: event.delayMs,
        error: event.error.message,
      };
      // Debug: a retry is routine; a request that gives up fails its window, which is logged.
      if (event.error.context.status === 429) options.log?.debug(fields, "request throttled, retrying");
      else options.log?.debug(fields, "request failed, retrying");
    },
  });
}

/**
 * Why a host that never answered cannot be reached, with the fix, for the network errors that mean
 * so (undefined for any other failure: a timeout, a reset, a 5xx stay transient and are retried).
 */
export function unreachableReason(error: unknown): string | undefined {
  if (!(error instanceof TransportError) || error.failure !== "network") return undefined;
  const code = (error.cause as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOTFOUND":
      return "its host name does not resolve (ENOTFOUND); check the account's base_url for a typo";
    case "EAI_AGAIN":
      return "its host name could not be resolved (EAI_AGAIN, no answer from DNS); check the account's base_url and this machine's DNS";
    case "ECONNREFUSED":
      return "the connection was refused (ECONNREFUSED): nothing listens there; check the host and port of the account's base_url, and that the platform is up";
    default:
      return undefined;
  }
}

/** Joins base URL and path and appends the query; refuses `appid` (Bearer is the only auth we send). */
export function buildUrl(base: URL, path: string, query: Query): URL {
  if (!path.startsWith("/")) throw new UsageError(`API path must start with "/", got "${path}"`);
  const url = new URL(base.toString().replace(/\/+$/, "") + path);
  for (const [name, value] of Object.entries(query)) {
    if (name.toLowerCase() === "appid")
      throw new UsageError("the appid query parameter is never sent: Bearer auth only");
    if (value === undefined || value === null) continue;
    url.searchParams.append(name, String(value));
  }
  return url;
}

function parseBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`API base URL is not a URL: ${redactUrl(raw)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`API base URL must be http or https: ${redactUrl(raw)}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new UsageError(`API base URL must not carry credentials: ${redactUrl(raw)}`);
  }
  url.search = "";
  url.hash = "";
  return url;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A short, single-line excerpt of a non-JSON body (an HTML error page from a proxy, say). */
function snippet(text: string): string | undefined {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat === "" ? undefined : flat.slice(0, 200);
}

/** Replaces every occurrence of the key, in case the platform echoes it back in a message. */
export function scrubSecret(text: string, secret: string): string {
  return secret.length < 4 ? text : text.split(secret).join("***");
}
