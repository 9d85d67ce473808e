/**
 * The one place that decides what an HTTP status means for the loader: carry on, let the stream
 * interpret a 404, stop the account (401), skip the stream (403), fail the slice (400/422, other 4xx)
 * or retry (408, 429, 5xx). Messages name account, stream, method and path; never the key.
 */
import {
  AuthError,
  type ErrorContext,
  type EtlError,
  PermissionError,
  RetryableError,
  SliceError,
} from "../core/errors.js";

/** Where a response came from, for messages and error context. */
export interface RequestContext {
  readonly account: string;
  readonly stream?: string;
  readonly method: string;
  /** Path and query, already redacted. */
  readonly path: string;
  /** Scheme, host and port of the account's base URL (redacted), so a message says which server failed. */
  readonly origin?: string;
  /** Permission the stream needs, named in the 403 message (for example `billing:read`). */
  readonly permission?: string;
  /** Env var that holds this account's key, named in the 401 message. */
  readonly apiKeyEnvVar?: string;
}

/** What the caller does with a response. */
export type ResponseOutcome =
  | { readonly kind: "ok" }
  | { readonly kind: "not-found"; readonly platformMessage: string | undefined }
  | { readonly kind: "error"; readonly error: EtlError };

/** The statuses this module treats as transient. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

/** Extracts the platform's `message` (or `error` string) from an error body, if it has one. */
export function platformMessageOf(body: unknown): string | undefined {
  if (typeof body === "string") {
    const text = body.trim();
    return text === "" ? undefined : text.slice(0, 500);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ["message", "error_description", "error", "detail"]) {
    const value = record[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim().slice(0, 500);
  }
  return undefined;
}

/** "account acme, stream cdrs: GET https://api.example.com/v1/cdr?page=2" — the prefix of every message of this module. */
export function describeRequest(request: RequestContext): string {
  const who =
    request.stream === undefined
      ? `account ${request.account}`
      : `account ${request.account}, stream ${request.stream}`;
  return `${who}: ${requestLine(request)}`;
}

/** "GET https://api.example.com/v1/cdr?page=2": method and redacted URL (the bare path when no origin is known). */
export function requestLine(request: RequestContext): string {
  return `${request.method} ${request.origin ?? ""}${request.path}`;
}

/**
 * Maps a status (and the platform's message, when the body had one) to what the caller does.
 * `retryAfterMs` is the parsed `Retry-After`, honoured for 429 and 5xx.
 */
export function classifyResponse(
  status: number,
  platformMessage: string | undefined,
  request: RequestContext,
  retryAfterMs?: number,
): ResponseOutcome {
  if (status >= 200 && status < 300) return { kind: "ok" };
  if (status === 404) return { kind: "not-found", platformMessage };
  const context: ErrorContext = {
    account: request.account,
    stream: request.stream,
    method: request.method,
    path: request.path,
    status,
    platformMessage,
  };
  const said = platformMessage === undefined ? "" : `: "${platformMessage}"`;
  const where = describeRequest(request);
  if (status === 401) {
    const fix =
      request.apiKeyEnvVar === undefined
        ? "check the API key configured for this account"
        : `check the API key in env var ${request.apiKeyEnvVar}`;
    const message = `account ${request.account}: the platform rejected the API key (401 Unauthorized${said}) on ${requestLine(request)}; ${fix}`;
    return { kind: "error", error: new AuthError(message, context) };
  }
  if (status === 403) {
    const missing =
      request.permission === undefined
        ? "the API key lacks a permission this request needs"
        : `the API key lacks the permission ${request.permission}`;
    const fix =
      request.permission === undefined
        ? ""
        : `; grant ${request.permission} to the key or drop the stream for this account`;
    return {
      kind: "error",
      error: new PermissionError(`${where}: ${missing} (403 Forbidden${said})${fix}`, context),
    };
  }
  if (RETRYABLE_STATUSES.has(status) || status >= 500) {
    const reason = status === 429 ? "rate limited (429)" : `HTTP ${status}`;
    return {
      kind: "error",
      error: new RetryableError(`${where}: ${reason}${said}`, context, { retryAfterMs }),
    };
  }
  if (status === 400 || status === 422) {
    return {
      kind: "error",
      error: new SliceError(`${where}: the platform refused the request (${status}${said})`, context),
    };
  }
  return { kind: "error", error: new SliceError(`${where}: unexpected HTTP ${status}${said}`, context) };
}
