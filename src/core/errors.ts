/**
 * Error classes grouped by what the caller should do with them. `exitCodeFor` in
 * `src/core/exit-codes.ts` is the only place that turns them into exit codes; everything else throws or
 * returns them with context.
 *
 * Messages never contain secrets: API keys are never interpolated, URLs are passed through
 * `redactUrl` before they are put in a message.
 */
import { isCredentialName, MASK } from "./known-secrets.js";

/** Context attached to errors so an operator can tell where something went wrong. */
export interface ErrorContext {
  readonly account?: string;
  readonly stream?: string;
  readonly window?: string;
  readonly page?: number;
  readonly method?: string;
  readonly path?: string;
  readonly status?: number;
  readonly platformMessage?: string;
}

/** Base class of every error this project throws on purpose. */
export class EtlError extends Error {
  readonly context: ErrorContext;
  constructor(message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.context = context;
  }
}

/** Bad flag, bad config, missing env var, unreachable or malformed database URL: nothing was done (exit 2). */
export class UsageError extends EtlError {}

/**
 * Stop every stream of this account, it cannot be read at all (exit 2 when nothing else ran): the
 * platform refused the credentials (401), or, as {@link UnreachableHostError}, its host cannot be
 * reached.
 */
export class AuthError extends EtlError {}

/**
 * The account's host cannot be reached at all: its name does not resolve (ENOTFOUND, EAI_AGAIN)
 * or it refuses every connection (ECONNREFUSED) before it ever answered. A configuration error
 * (a typo in the URL, a wrong port): never retried, the account stops at once like a refused key.
 */
export class UnreachableHostError extends AuthError {}

/** The key lacks a permission (403): skip this stream for this account, others go on. */
export class PermissionError extends EtlError {}

/** A transient failure worth another attempt (429, 5xx, network, timeout, unparseable body). */
export class RetryableError extends EtlError {
  /** Seconds the server asked us to wait (Retry-After), if any. */
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    context: ErrorContext = {},
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, context, options);
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** The slice (one window of one stream of one account) cannot be loaded this run; it stays open. */
export class SliceError extends EtlError {}

/** Another process holds the advisory lock of a stream this run needs, or the transform lock (exit 4). */
export class LockHeldError extends EtlError {}

/**
 * The database session holding a run's locks ended and another run took one of them before this
 * run could take them again (or the database stayed unreachable): the run starts no new window and
 * ends with exit 4; no window is committed without its lock.
 */
export class LockLostError extends LockHeldError {}

/**
 * The marts were built and tested but their publication could not be committed (a query kept a
 * published mart locked): BI still sees the previous marts (exit 5, as a failed build).
 */
export class PublishError extends EtlError {}

/** A migration file that was already applied has changed on disk (exit 2). */
export class MigrationChecksumError extends UsageError {}

/** Query parameters that carry credentials without a credential's name (see {@link redactUrl}). */
const URL_CREDENTIAL_PARAMS = new Set([
  "appid",
  "auth",
  "sig",
  "signature",
  "x-amz-signature",
  "x-goog-signature",
]);

/**
 * A URL without its credentials, for messages, logs and `config show`: the user and password of
 * its userinfo (a token is often the user: `https://TOKEN@host`) and the value of every query
 * parameter whose name is a credential's (`api_key`, `apiKey`, `access_token`, `password`, `sig`,
 * `appid`, …) become `***`.
 */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username) url.username = MASK;
    if (url.password) url.password = MASK;
    for (const name of new Set(url.searchParams.keys())) {
      if (isCredentialName(name) || URL_CREDENTIAL_PARAMS.has(name.toLowerCase()))
        url.searchParams.set(name, MASK);
    }
    return url.toString();
  } catch {
    return "<unparseable url>";
  }
}

/** A short one-line description of any thrown value, for logs and the CLI's last line. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
