/**
 * One HTTP GET on undici: its `Agent` keeps the connections alive and times the connect (DNS + TCP
 * + TLS of a new socket), the headers (from the request written until its status and headers
 * arrive: a stalled server does not hold a worker for the whole total timeout) and the body's
 * silences (no byte for that long: a slow-loris body fails fast); a total timeout (until the last
 * byte of the body) aborts the request. undici checks its three timeouts on a clock that ticks
 * every half second, so they fire up to about a second late: still bounded, and far below the
 * defaults (10 s). undici's request() does not decompress, and its `maxResponseSize` counts only
 * wire bytes (failing with a message that cannot say how far the body got): the body streams
 * through node:zlib, capped in wire and in decoded bytes here (see readBody). Failures come back
 * as {@link TransportError} with a short, secret-free reason; the caller decides about retries.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { LookupFunction } from "node:net";
import type { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { Agent, type Dispatcher, request } from "undici";

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
  readonly headers: Readonly<Record<string, string>>;
  /** The client's connections (see {@link keepAliveConnections}). */
  readonly dispatcher: Dispatcher;
  /** The connect timeout the dispatcher enforces, named in its message. */
  readonly connectMs: number;
  /** From the request being written until the response headers arrive. */
  readonly headersMs: number;
  /** Longest wait for the next byte of the body once the headers arrived (and before its first byte). */
  readonly bodyIdleMs: number;
  readonly totalMs: number;
  readonly maxBodyBytes: number;
  readonly signal?: AbortSignal;
}

/** The keep-alive connections of one client. */
export interface KeepAliveConnections {
  /** The agent requests go through, created on first use. */
  dispatcher(): Dispatcher;
  /** Closes every connection; a later request opens new ones. */
  close(): void;
}

/**
 * The connections of one client: at most `maxSockets` per origin, each connect bounded by
 * `connectMs` (the DNS lookup included), with TCP keep-alive probes after a second of silence.
 */
export function keepAliveConnections(settings: {
  readonly connectMs: number;
  readonly maxSockets: number;
  readonly lookup?: LookupFunction | undefined;
}): KeepAliveConnections {
  let agent: Agent | undefined;
  const connect = {
    timeout: settings.connectMs,
    keepAlive: true,
    keepAliveInitialDelay: 1000,
    ...(settings.lookup === undefined ? {} : { lookup: settings.lookup }),
  };
  return {
    dispatcher() {
      agent ??= new Agent({ connections: settings.maxSockets, connect });
      return agent;
    },
    close() {
      // Destroyed, not closed: nothing waits for requests in flight (node:http's agent.destroy()).
      void agent?.destroy();
      agent = undefined;
    },
  };
}

/** How far a request got, for the messages of its failures. */
interface Progress {
  headers: boolean;
  received: number;
  encoding: string;
  /** Which stream of the body failed first: the decompressor's is a corrupt or truncated compressed body. */
  failedFirst: "body" | "decoder" | undefined;
}

/** Sends one GET and resolves with the whole response; rejects with a TransportError or the signal's reason. */
export async function requestOnce(url: URL, options: RequestOnceOptions): Promise<RawResponse> {
  options.signal?.throwIfAborted();
  const aborter = new AbortController();
  const totalTimer = setTimeout(() => {
    const message = `no complete response within ${options.totalMs} ms (total timeout)`;
    aborter.abort(new TransportError("timeout", message));
  }, options.totalMs);
  const onAbort = () => aborter.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const progress: Progress = {
    headers: false,
    received: 0,
    encoding: "identity",
    failedFirst: undefined,
  };
  try {
    const response = await request(url, {
      method: "GET",
      headers: options.headers,
      dispatcher: options.dispatcher,
      signal: aborter.signal,
      headersTimeout: options.headersMs,
      bodyTimeout: options.bodyIdleMs,
    });
    progress.headers = true;
    const body = await readBody(response, options.maxBodyBytes, progress);
    // undici hands a socket back to its pool one event-loop turn after the response (setImmediate):
    // waiting for that turn lets a worker's next request reuse it instead of opening another one.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // undici's headers are node:http's shape (lower-case names, repeated ones as arrays).
    return { status: response.statusCode, headers: response.headers as IncomingHttpHeaders, body };
  } catch (error) {
    throw aborter.signal.aborted ? aborter.signal.reason : transportErrorOf(error, options, progress);
  } finally {
    clearTimeout(totalTimer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** The TransportError of an error undici (or the decompressor) threw, by its code and how far the request got. */
function transportErrorOf(error: unknown, options: RequestOnceOptions, progress: Progress): unknown {
  if (error instanceof TransportError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code ?? (error as Error).message;
  switch (code) {
    case "UND_ERR_CONNECT_TIMEOUT":
      return new TransportError(
        "connect-timeout",
        `could not connect within ${options.connectMs} ms (connect timeout)`,
        { cause: error },
      );
    case "UND_ERR_HEADERS_TIMEOUT":
      return new TransportError(
        "headers-timeout",
        `no response headers within ${options.headersMs} ms (headers timeout)`,
        { cause: error },
      );
    case "UND_ERR_BODY_TIMEOUT":
      return new TransportError(
        "body-timeout",
        `the body stalled: no byte for ${options.bodyIdleMs} ms after ${progress.received} bytes (body-idle timeout)`,
        { cause: error },
      );
  }
  if (!progress.headers) {
    // undici's "other side closed" is node:http's "socket hang up": the server closed before answering.
    const shown = code === "UND_ERR_SOCKET" ? "ECONNRESET" : reason;
    return new TransportError("network", `network error (${shown})`, { cause: error });
  }
  if (progress.failedFirst === "decoder") {
    const message = `could not decompress the response body (${progress.encoding})`;
    return new TransportError("decode", message, { cause: error });
  }
  if (code === "UND_ERR_SOCKET" || code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") {
    return new TransportError("truncated", `connection closed after ${progress.received} bytes of the body`, {
      cause: error,
    });
  }
  return new TransportError("truncated", `connection lost while reading the body (${reason})`, {
    cause: error,
  });
}

/**
 * Reads a response's body through its Content-Encoding's decompressor, as it streams: the body cap
 * applies to the decoded bytes (and to the bytes on the wire), and the request fails the moment
 * either passes it, so a gzip bomb (409 KB inflating to 400 MB) costs at most the cap in memory
 * and in inflate work. A `Content-Length` already past the cap fails before any byte is read.
 */
async function readBody(response: Dispatcher.ResponseData, cap: number, progress: Progress): Promise<Buffer> {
  const encoding = headerText(response.headers["content-encoding"])?.trim().toLowerCase() || "identity";
  progress.encoding = encoding;
  const announced = Number(headerText(response.headers["content-length"]));
  let decoder: Transform | null;
  try {
    if (Number.isFinite(announced) && announced > cap)
      throw tooLarge(cap, encoding, `announced as ${announced} bytes`);
    decoder = decoderFor(encoding);
  } catch (error) {
    // Closes the connection without reading on; the body's own abort error is not news.
    response.body.on("error", () => {}).destroy();
    throw error;
  }
  const chunks: Buffer[] = [];
  let decoded = 0;
  const onWire = async function* (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      progress.received += chunk.length;
      if (progress.received > cap) throw tooLarge(cap, encoding, `${progress.received} bytes received`);
      yield chunk;
    }
  };
  const keep = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      decoded += chunk.length;
      if (decoded > cap) throw tooLarge(cap, encoding, `${progress.received} bytes received`);
      chunks.push(chunk);
    }
  };
  const body: Readable = response.body;
  if (decoder === null) {
    await pipeline(body, onWire, keep);
  } else {
    // A stream that fails destroys the others with its error: the first one to fail names the cause.
    const failed = (stream: "body" | "decoder") => () => {
      progress.failedFirst ??= stream;
    };
    body.once("error", failed("body"));
    decoder.once("error", failed("decoder"));
    // A truncated compressed stream makes the decoder fail at its end, so the caller retries.
    await pipeline(body, onWire, decoder, keep);
  }
  return Buffer.concat(chunks, decoded);
}

/** The streaming decompressor of a Content-Encoding, null for none; a TransportError for one we do not speak. */
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
      throw new TransportError("decode", `unsupported content-encoding ${encoding}`);
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The failure of a body past the cap: one line naming the cap, the encoding and how far it got. */
function tooLarge(cap: number, encoding: string, progress: string): TransportError {
  const decoded = encoding === "identity" ? "" : ` once decompressed (${encoding})`;
  return new TransportError("too-large", `response body larger than ${cap} bytes${decoded}, ${progress}`);
}
