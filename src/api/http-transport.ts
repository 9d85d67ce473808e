/**
 * One HTTP GET over node:http / node:https with a connect timeout (DNS + TCP connect of a new
 * socket), a headers timeout (until the response's status and headers arrive: a stalled server
 * does not hold a worker for the whole total timeout), a body-idle timeout (the headers came, then
 * no byte of the body for that long: a slow-loris body fails fast instead of holding the request
 * until the total timeout) and a total timeout (until the last byte of the body). Node's fetch has no separate
 * connect timeout, hence node:http. Failures come back as {@link TransportError} with a short,
 * secret-free reason; the caller decides about retries.
 */
import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from "node:http";
import https from "node:https";
import type { LookupFunction, Socket } from "node:net";
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
    let settled = false;
    const cleanup = () => {
      for (const timer of timers) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
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
      const chunks: Buffer[] = [];
      let size = 0;
      // Re-armed by every chunk: a body that stops (or trickles slower than this) fails now.
      let idleTimer: NodeJS.Timeout | undefined;
      const armIdle = () => {
        if (idleTimer !== undefined) clearTimeout(idleTimer);
        idleTimer = failAfter(
          options.bodyIdleMs,
          "body-timeout",
          `the body stalled: no byte for ${options.bodyIdleMs} ms after ${size} bytes (body-idle timeout)`,
        );
      };
      armIdle();
      response.on("data", (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        armIdle();
        if (size > options.maxBodyBytes) {
          fail(new TransportError("too-large", `response body larger than ${options.maxBodyBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.on("error", (error: NodeJS.ErrnoException) => {
        fail(
          new TransportError(
            "truncated",
            `connection lost while reading the body (${error.code ?? error.message})`,
            { cause: error },
          ),
        );
      });
      response.on("close", () => {
        if (!response.complete)
          fail(new TransportError("truncated", `connection closed after ${size} bytes of the body`));
      });
      response.on("end", () => {
        if (settled) return;
        if (!response.complete) {
          fail(new TransportError("truncated", `connection closed after ${size} bytes of the body`));
          return;
        }
        let body: Buffer;
        try {
          body = decode(Buffer.concat(chunks), response.headers["content-encoding"]);
        } catch (error) {
          fail(new TransportError("decode", "could not decompress the response body", { cause: error }));
          return;
        }
        settled = true;
        cleanup();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
    request.end();
  });
}

/** Undoes a Content-Encoding; a truncated stream throws, so the caller retries. */
function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case "":
    case "identity":
      return body;
    case "gzip":
    case "x-gzip":
      return zlib.gunzipSync(body);
    case "deflate":
      return zlib.inflateSync(body);
    case "br":
      return zlib.brotliDecompressSync(body);
    default:
      throw new Error(`unsupported content-encoding ${encoding}`);
  }
}
