/**
 * One HTTP GET over node:http / node:https with a connect timeout (DNS + TCP connect of a new
 * socket), a headers timeout (until the response's status and headers arrive: a stalled server
 * does not hold a worker for the whole total timeout), a body-idle timeout (the headers came, then
 * no byte of the body for that long: a slow-loris body fails fast instead of holding the request
 * until the total timeout) and a total timeout (until the last byte of the body). Node's fetch has no separate
 * connect timeout, hence node:http. The body is decompressed as it streams and capped in decoded
 * bytes (see readBody). Failures come back as {@link TransportError} with a short, secret-free
 * reason; the caller decides about retries.
 */
import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from "node:http";
import https from "node:https";
import type { LookupFunction, Socket } from "node:net";
import type { Transform } from "node:stream";
import zlib from "node:zlib";

/** Why a request failed below HTTP. */
export const TRANSPORT_FAILURES = [
  "connect-timeout",
  "headers-timeout",
  "body-timeout",
  "timeout",
  "network",
  "truncated",
  "too-large",
  "decode",
] as const;
/** One of {@link TRANSPORT_FAILURES}. */
export type TransportFailure = (typeof TRANSPORT_FAILURES)[number];

/** A request that got no complete response. The message never contains headers or the URL. */
export class TransportError extends Error {
  readonly failure: TransportFailure;
  constructor(failure: TransportFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TransportError";
    this.failure = failure;
  }
}

/** A complete response: status, headers and the decoded body bytes. */
export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Per-request settings of {@link requestOnce}. */
export interface RequestOnceOptions {
  readonly headers: OutgoingHttpHeaders;
  readonly agent: http.Agent;
  readonly connectMs: number;
  /** From the request being sent (connect included) until the response headers arrive. */
  readonly headersMs: number;
  /** Longest wait for the next byte of the body once the headers arrived (and before its first byte). */
  readonly bodyIdleMs: number;
  readonly totalMs: number;
  readonly maxBodyBytes: number;
  readonly lookup?: LookupFunction;
  readonly signal?: AbortSignal;
}

/** Creates the keep-alive agent of one client (one per base URL protocol). */
export function createKeepAliveAgent(protocol: string, maxSockets: number): http.Agent {
  const options = { keepAlive: true, keepAliveMsecs: 1000, maxSockets, scheduling: "lifo" as const };
  return protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
}

/** Sends one GET and resolves with the whole response; rejects with a TransportError or the signal's reason. */
export function requestOnce(url: URL, options: RequestOnceOptions): Promise<RawResponse> {
  return new Promise<RawResponse>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    const module = url.protocol === "https:" ? https : http;
    const timers: NodeJS.Timeout[] = [];
    const cleanups: (() => void)[] = [];
    let settled = false;
    const cleanup = () => {
      for (const timer of timers) clearTimeout(timer);
      for (const extra of cleanups) extra();
      options.signal?.removeEventListener("abort", onAbort);
    };
    const onCleanup = (extra: () => void) => void cleanups.push(extra);
    /** Marks the request done (resolved) and releases its timers. */
    const settle = () => {
      settled = true;
      cleanup();
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      request.destroy();
      reject(error);
    };
    const onAbort = () => fail(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const request = module.request(url, {
      method: "GET",
      headers: options.headers,
      agent: options.agent,
      ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
    });
    /** Fails the request with `failure` unless the returned timer is cleared within `ms`. */
    const failAfter = (ms: number, failure: TransportFailure, message: string) => {
      const timer = setTimeout(() => fail(new TransportError(failure, message)), ms);
      timers.push(timer);
      return timer;
    };
    failAfter(
      options.totalMs,
      "timeout",
      `no complete response within ${options.totalMs} ms (total timeout)`,
    );
    const headersTimer = failAfter(
      options.headersMs,
      "headers-timeout",
      `no response headers within ${options.headersMs} ms (headers timeout)`,
    );
    request.on("socket", (socket: Socket) => {
      // A reused keep-alive socket is already connected; only a new one gets the connect timeout.
      if (!socket.connecting) return;
      const timer = failAfter(
        options.connectMs,
        "connect-timeout",
        `could not connect within ${options.connectMs} ms (connect timeout)`,
      );
      socket.once("connect", () => clearTimeout(timer));
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      fail(new TransportError("network", `network error (${error.code ?? error.message})`, { cause: error }));
    });
    request.on("response", (response) => {
      clearTimeout(headersTimer);
      readBody(response, options, { fail, failAfter, resolve, isSettled: () => settled, settle, onCleanup });
    });
    request.end();
  });
}

/** What {@link readBody} needs of the request it belongs to. */
interface BodyHooks {
  readonly fail: (error: unknown) => void;
  /** Fails the request with `failure` unless the returned timer is cleared within `ms`. */
  readonly failAfter: (ms: number, failure: TransportFailure, message: string) => NodeJS.Timeout;
  readonly resolve: (response: RawResponse) => void;
  readonly isSettled: () => boolean;
  /** Marks the request done before `resolve` (clears its timers). */
  readonly settle: () => void;
  readonly onCleanup: (cleanup: () => void) => void;
}

/**
 * The bytes of one body as they arrive: on the wire, and decoded. Fails the request (through
 * `fail`) the moment either count passes the cap, keeping nothing more.
 */
class BodyBytes {
  readonly #chunks: Buffer[] = [];
  readonly #cap: number;
  readonly #encoding: string;
  readonly #fail: (error: unknown) => void;
  received = 0;
  #decoded = 0;

  constructor(cap: number, encoding: string, fail: (error: unknown) => void) {
    this.#cap = cap;
    this.#encoding = encoding;
    this.#fail = fail;
  }

  /** Counts a chunk off the wire; false when the body passed the cap (the request failed). */
  wire(chunk: Buffer): boolean {
    this.received += chunk.length;
    if (this.received <= this.#cap) return true;
    this.#fail(tooLarge(this.#cap, this.#encoding, `${this.received} bytes received`));
    return false;
  }

  /** Keeps a decoded chunk, unless the decoded body passed the cap (the request failed). */
  keep(chunk: Buffer): void {
    this.#decoded += chunk.length;
    if (this.#decoded > this.#cap) {
      this.#fail(tooLarge(this.#cap, this.#encoding, `${this.received} bytes received`));
      return;
    }
    this.#chunks.push(chunk);
  }

  body(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}

/**
 * Reads a response's body through its Content-Encoding's decompressor, as it streams: the body cap
 * applies to the decoded bytes (and to the bytes on the wire), and the request fails the moment
 * either passes it, so a gzip bomb (409 KB inflating to 400 MB) costs at most the cap in memory
 * and in inflate work. A `Content-Length` already past the cap fails before any byte is read.
 */
function readBody(response: http.IncomingMessage, options: RequestOnceOptions, hooks: BodyHooks): void {
  const { fail } = hooks;
  const cap = options.maxBodyBytes;
  const encoding = response.headers["content-encoding"]?.trim().toLowerCase() || "identity";
  const announced = Number(response.headers["content-length"]);
  if (Number.isFinite(announced) && announced > cap) {
    fail(tooLarge(cap, encoding, `announced as ${announced} bytes`));
    return;
  }
  let decoder: Transform | null;
  try {
    decoder = decoderFor(encoding);
  } catch (error) {
    fail(new TransportError("decode", (error as Error).message, { cause: error }));
    return;
  }
  const bytes = new BodyBytes(cap, encoding, fail);
  const keep = (chunk: Buffer) => {
    if (!hooks.isSettled()) bytes.keep(chunk);
  };
  const finish = () => {
    if (hooks.isSettled()) return;
    hooks.settle();
    hooks.resolve({ status: response.statusCode ?? 0, headers: response.headers, body: bytes.body() });
  };
  if (decoder !== null) {
    const created = decoder;
    hooks.onCleanup(() => created.destroy());
    created.on("data", keep);
    created.on("end", finish);
    created.on("error", (error) =>
      fail(
        new TransportError("decode", `could not decompress the response body (${encoding})`, {
          cause: error,
        }),
      ),
    );
  }
  watchResponse(
    response,
    options,
    hooks,
    bytes,
    (chunk) => {
      if (decoder === null) {
        keep(chunk);
      } else if (!decoder.write(chunk)) {
        // The decompressor is behind: hold the socket until it drained (memory stays bounded).
        response.pause();
        decoder.once("drain", () => response.resume());
      }
    },
    () => {
      // A truncated compressed stream makes the decoder fail at its end, so the caller retries.
      if (decoder === null) finish();
      else decoder.end();
    },
  );
}

/**
 * The response's own events: each chunk counted on the wire (re-arming the body-idle timer) and
 * handed to `onChunk`, a complete end to `onEnd`, a lost or cut connection failed as truncated.
 */
function watchResponse(
  response: http.IncomingMessage,
  options: RequestOnceOptions,
  hooks: BodyHooks,
  bytes: BodyBytes,
  onChunk: (chunk: Buffer) => void,
  onEnd: () => void,
): void {
  const { fail } = hooks;
  // Re-armed by every chunk: a body that stops (or trickles slower than this) fails now.
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = hooks.failAfter(
      options.bodyIdleMs,
      "body-timeout",
      `the body stalled: no byte for ${options.bodyIdleMs} ms after ${bytes.received} bytes (body-idle timeout)`,
    );
  };
  armIdle();
  const truncated = () =>
    fail(new TransportError("truncated", `connection closed after ${bytes.received} bytes of the body`));
  response.on("data", (chunk: Buffer) => {
    if (hooks.isSettled() || !bytes.wire(chunk)) return;
    armIdle();
    onChunk(chunk);
  });
  response.on("error", (error: NodeJS.ErrnoException) => {
    fail(
      new TransportError(
        "truncated",
        `connection lost while reading the body (${error.code ?? error.message})`,
        {
          cause: error,
        },
      ),
    );
  });
  response.on("close", () => {
    if (!response.complete) truncated();
  });
  response.on("end", () => {
    if (hooks.isSettled()) return;
    if (!response.complete) truncated();
    else onEnd();
  });
}

/** The streaming decompressor of a Content-Encoding, null for none; throws for one we do not speak. */
function decoderFor(encoding: string): Transform | null {
  switch (encoding) {
    case "identity":
      return null;
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      throw new Error(`unsupported content-encoding ${encoding}`);
  }
}

/** The failure of a body past the cap: one line naming the cap, the encoding and how far it got. */
function tooLarge(cap: number, encoding: string, progress: string): TransportError {
  const decoded = encoding === "identity" ? "" : ` once decompressed (${encoding})`;
  return new TransportError("too-large", `response body larger than ${cap} bytes${decoded}, ${progress}`);
}
