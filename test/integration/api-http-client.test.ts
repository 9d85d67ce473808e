import http from "node:http";
import type { AddressInfo, LookupFunction, Socket } from "node:net";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ApiClient,
  type ApiClientOptions,
  createApiClient,
  newRequestTally,
} from "../../src/api/http-client.js";
import { createRateBudget } from "../../src/api/rate-budget.js";
import { RetriesExhaustedError } from "../../src/api/retry-policy.js";
import {
  AuthError,
  EtlError,
  PermissionError,
  SliceError,
  UnreachableHostError,
  UsageError,
} from "../../src/core/errors.js";
import { EXIT, exitCodeFor } from "../../src/core/exit-codes.js";
import { capturingLogger } from "./pipeline-harness.js";

/**
 * The client against a real node:http server on 127.0.0.1 (port 0), so timeouts, resets, truncated
 * bodies and Retry-After go through real sockets. Only `sleep` (the retry waits) is faked, to record
 * the waits and keep the tests fast; the connect and total timeouts are real timers.
 */

const API_KEY = "sk_live_7f3a9c1e5b2d4f6a8c0e";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void;

interface TestServer {
  readonly baseUrl: string;
  readonly port: number;
  readonly requests: { url: string; authorization: string | undefined }[];
  connections: number;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startServer(handler: Handler): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const requests: TestServer["requests"] = [];
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? "", authorization: req.headers.authorization });
    handler(req, res, requests.length);
  });
  const state = { connections: 0 };
  server.on("connection", (socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const result: TestServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    requests,
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  cleanups.push(() => result.close());
  return result;
}

function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function makeClient(server: TestServer, overrides: Partial<ApiClientOptions> = {}) {
  const waits: number[] = [];
  // Log lines written by the client, to check the key never reaches them.
  const lines: string[] = [];
  const client: ApiClient = createApiClient({
    baseUrl: server.baseUrl,
    apiKey: API_KEY,
    account: "acme",
    apiKeyEnvVar: "TELECOM_ACME_API_KEY",
    sleep: async (ms) => void waits.push(ms),
    clock: { now: () => Date.parse("2025-03-01T12:00:00Z") },
    random: () => 0.5,
    log: capturingLogger(lines),
    ...overrides,
  });
  cleanups.push(() => client.close());
  return { client, waits, logLines: lines };
}

async function caught(promise: Promise<unknown>): Promise<EtlError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof EtlError)) throw new Error(`expected an EtlError, got ${String(error)}`);
  return error;
}

/** Every text an operator could see of an error: message, stack, context, and the chain of causes. */
function everythingVisible(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 10; depth++) {
    parts.push(String(current));
    if (current instanceof Error) {
      parts.push(current.stack ?? "");
      if (current instanceof EtlError) parts.push(JSON.stringify(current.context));
      current = current.cause;
    } else break;
  }
  return parts.join("\n");
}

describe("http client: success path", () => {
  it("sends Bearer auth only, builds the query, returns status, body and headers", async () => {
    const server = await startServer((_req, res) =>
      json(res, 200, { items: [1, 2], pagination: { total: 2 } }),
    );
    const { client } = makeClient(server);
    const response = await client.getJson("/v1/cdr", {
      from: "2025-03-01",
      to: "2025-03-01",
      type: "placed",
      page: 2,
      sip_trunk: undefined,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ items: [1, 2], pagination: { total: 2 } });
    expect(response.headers["content-type"]).toBe("application/json");
    expect(server.requests).toEqual([
      { url: "/v1/cdr?from=2025-03-01&to=2025-03-01&type=placed&page=2", authorization: `Bearer ${API_KEY}` },
    ]);
  });

  it("refuses to send appid", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    const { client } = makeClient(server);
    await expect(client.getJson("/v1/cdr", { appid: API_KEY })).rejects.toThrow(UsageError);
    expect(server.requests).toHaveLength(0);
  });

  it("reuses one keep-alive connection for sequential requests", async () => {
    const server = await startServer((_req, res) => json(res, 200, { ok: true }));
    const { client } = makeClient(server);
    for (let i = 0; i < 5; i++) await client.getJson("/v1/billing/invoices", { page: i + 1 });
    expect(server.requests).toHaveLength(5);
    expect(server.connections).toBe(1);
  });

  it("decodes a gzip body", async () => {
    const server = await startServer((_req, res) => {
      const body = zlib.gzipSync(JSON.stringify({ invoices: [], is_empty: true }));
      res.writeHead(200, {
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": body.length,
      });
      res.end(body);
    });
    const { client } = makeClient(server);
    expect((await client.getJson("/v1/billing/invoices")).body).toEqual({ invoices: [], is_empty: true });
  });

  it("returns a 404 for the stream to interpret, without retrying", async () => {
    const server = await startServer((_req, res) =>
      json(res, 404, { success: false, message: "Record not found" }),
    );
    const { client, waits } = makeClient(server);
    const response = await client.getJson("/v1/speech-analytics/abc", {}, { stream: "transcriptions" });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, message: "Record not found" });
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

describe("http client: retries", () => {
  it("retries 500s with backoff, then succeeds", async () => {
    const server = await startServer((_req, res, n) =>
      n <= 2 ? json(res, 500, { success: false, message: "Internal error" }) : json(res, 200, { ok: n }),
    );
    const { client, waits } = makeClient(server);
    const response = await client.getJson("/v1/cdr", { page: 1 }, { stream: "cdrs" });
    expect(response.body).toEqual({ ok: 3 });
    expect(server.requests).toHaveLength(3);
    // Full jitter with random() = 0.5: half of 500 ms, then half of 1000 ms.
    expect(waits).toEqual([250, 500]);
  });

  it("counts every request sent, the retries among them and the 429 answers in the caller's tally", async () => {
    const server = await startServer((req, res) => {
      const seen = server.requests.filter((r) => r.url === req.url).length;
      if (req.url?.includes("page=1") && seen === 1) json(res, 500, { success: false, message: "Internal" });
      else if (req.url?.includes("page=2") && seen <= 2) json(res, 429, {}, { "retry-after": "0" });
      else json(res, 200, { ok: true });
    });
    const { client } = makeClient(server);
    const tally = newRequestTally();
    await client.getJson("/v1/cdr", { page: 1 }, { stream: "cdrs", tally });
    expect(tally).toEqual({ requests: 2, retries: 1, throttled: 0 });
    await client.getJson("/v1/cdr", { page: 2 }, { stream: "cdrs", tally });
    await client.getJson("/v1/cdr", { page: 3 }, { stream: "cdrs", tally });
    // Page 2 was answered 429 twice (a 500 is a retry, not a throttle).
    expect(tally).toEqual({ requests: 6, retries: 3, throttled: 2 });
    expect(server.requests).toHaveLength(6);
  });

  it("honours Retry-After in seconds and as an HTTP date (against the injected clock), capped", async () => {
    const afterDate = "Sat, 01 Mar 2025 12:00:30 GMT"; // 30 s after the injected now
    const server = await startServer((_req, res, n) => {
      if (n === 1)
        return json(res, 429, { success: false, message: "Too many requests" }, { "retry-after": "7" });
      if (n === 2)
        return json(res, 429, { success: false, message: "Too many requests" }, { "retry-after": afterDate });
      if (n === 3) return json(res, 503, { success: false, message: "down" }, { "retry-after": "86400" });
      return json(res, 200, { ok: true });
    });
    const { client, waits } = makeClient(server, { retry: { maxRetryAfterMs: 45_000 } });
    await client.getJson("/v1/cdr");
    expect(waits).toEqual([7000, 30_000, 45_000]);
    expect(server.requests).toHaveLength(4);
  });

  /** A budget of 10 req/s on a clock that stands still (only the 429s move its rate). */
  const budgetAtTen = () =>
    createRateBudget({
      maxRatePerSecond: 10,
      burst: 10,
      concurrency: 2,
      clock: { now: () => 0 },
      sleep: async () => {},
    });

  it("an isolated 429 reaches the key's rate budget, which keeps its rate", async () => {
    const server = await startServer((_req, res, n) =>
      n === 1 ? json(res, 429, { success: false, message: "slow down" }) : json(res, 200, {}),
    );
    const budget = budgetAtTen();
    const { client } = makeClient(server, { budget });
    await client.getJson("/v1/cdr");
    expect(budget.currentRate).toBe(10);
    expect(budget.stats()).toMatchObject({ scheduled: 2, throttled: 1, succeeded: 1, decreases: 0 });
  });

  it("a run of 429s cuts the key's rate budget", async () => {
    const server = await startServer((_req, res, n) =>
      n <= 6 ? json(res, 429, { success: false, message: "slow down" }) : json(res, 200, {}),
    );
    const budget = budgetAtTen();
    const { client } = makeClient(server, { budget, retry: { maxAttempts: 8 } });
    await client.getJson("/v1/cdr");
    expect(budget.currentRate).toBeLessThan(10);
    expect(budget.stats()).toMatchObject({ throttled: 6, succeeded: 1, decreases: 1 });
  });

  it("a hang longer than the total timeout is retried, then fails with a clear error", async () => {
    const server = await startServer(() => {
      // Never answers.
    });
    const { client, waits } = makeClient(server, { timeouts: { totalMs: 200 }, retry: { maxAttempts: 3 } });
    const error = await caught(client.getJson("/v1/cdr", { page: 4 }, { stream: "cdrs" }));
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error).toBeInstanceOf(SliceError);
    expect(error.message).toBe(
      `account acme, stream cdrs: GET ${server.baseUrl}/v1/cdr?page=4: no complete response within 200 ms (total timeout) (gave up after 3 attempt(s), 0.8 s of waiting: 3 attempts allowed)`,
    );
    expect(error.context).toEqual({ account: "acme", stream: "cdrs", method: "GET", path: "/v1/cdr?page=4" });
    expect(server.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it("a body that stalls after its headers (slow loris) fails at the body-idle timeout, not the total one, and is retried", async () => {
    const server = await startServer((_req, res, n) => {
      if (n <= 2) {
        // Headers and the start of the body at once, then nothing more: the socket stays open.
        res.writeHead(200, { "content-type": "application/json", "content-length": 5000 });
        res.write('{"items": [{"uuid": "a"}, ');
        return;
      }
      json(res, 200, { items: [{ uuid: "a" }] });
    });
    const { client, logLines } = makeClient(server, {
      timeouts: { bodyIdleMs: 150, totalMs: 30_000 },
      retry: { maxAttempts: 3 },
    });
    const started = performance.now();
    const response = await client.getJson("/v1/cdr", {}, { stream: "cdrs" });
    const elapsed = performance.now() - started;
    expect(response.body).toEqual({ items: [{ uuid: "a" }] });
    expect(server.requests).toHaveLength(3);
    // Two stalled attempts of 150 ms each (waits are faked), far from one 30 s total timeout.
    expect(elapsed).toBeLessThan(10_000);
    expect(logLines.join("\n")).toContain(
      "the body stalled: no byte for 150 ms after 26 bytes (body-idle timeout)",
    );
  });

  it("a body that stalls on every attempt fails with a clear error naming the body-idle timeout", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }); // chunked, never ended
      res.write("{");
    });
    const { client } = makeClient(server, {
      timeouts: { bodyIdleMs: 100, totalMs: 30_000 },
      retry: { maxAttempts: 2 },
    });
    const error = await caught(client.getJson("/v1/cdr", {}, { stream: "cdrs" }));
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error.message).toContain("the body stalled: no byte for 100 ms after 1 bytes (body-idle timeout)");
    expect(server.requests).toHaveLength(2);
  });

  it("a server that takes the request and never answers fails at the headers timeout, not the total one", async () => {
    const server = await startServer(() => {
      // Never answers.
    });
    const { client } = makeClient(server, {
      timeouts: { headersMs: 100, totalMs: 30_000 },
      retry: { maxAttempts: 2 },
    });
    const started = performance.now();
    const error = await caught(client.getJson("/v1/cdr"));
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error.message).toContain("no response headers within 100 ms (headers timeout)");
    // undici times headers on a coarse clock (about 0.5 s), still far from one 30 s total timeout.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(server.requests).toHaveLength(2);
  });

  it("a body that does not decompress is retried, naming its encoding", async () => {
    const server = await startServer((_req, res, n) => {
      if (n === 1) {
        const whole = zlib.gzipSync(JSON.stringify({ items: [] }));
        // Complete on the wire, cut short for the decompressor (no gzip trailer).
        const cut = whole.subarray(0, whole.length - 6);
        res.writeHead(200, {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": cut.length,
        });
        res.end(cut);
        return;
      }
      json(res, 200, { items: [] });
    });
    const { client, logLines } = makeClient(server);
    expect((await client.getJson("/v1/cdr")).body).toEqual({ items: [] });
    expect(server.requests).toHaveLength(2);
    expect(logLines.join("\n")).toContain("could not decompress the response body (gzip)");
  });

  it("a connection that cannot be established within the connect timeout is retried, then fails", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    // A resolver that never answers keeps the socket in its connect phase (a DNS outage, say).
    const { client } = makeClient(server, {
      baseUrl: `http://api.platform.test:${server.port}`,
      lookup: () => {},
      timeouts: { connectMs: 100, totalMs: 10_000 },
      retry: { maxAttempts: 2 },
    });
    const error = await caught(client.getJson("/v1/cdr"));
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error.message).toContain(
      `GET http://api.platform.test:${server.port}/v1/cdr: could not connect within 100 ms (connect timeout)`,
    );
    expect((error as RetriesExhaustedError).attempts).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it("a host that never answered and refuses the connection stops at once: UnreachableHostError, one attempt", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    const { client } = makeClient(server, { retry: { maxAttempts: 6 } });
    await server.close();
    const tally = newRequestTally();
    const error = await caught(client.getJson("/v1/cdr", { page: 2 }, { stream: "cdrs", tally }));
    expect(error).toBeInstanceOf(UnreachableHostError);
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toBe(
      `account acme: cannot reach http://127.0.0.1:${server.port}: the connection was refused (ECONNREFUSED): nothing listens there; check the host and port of the account's base_url, and that the platform is up`,
    );
    expect(tally).toEqual({ requests: 1, retries: 0, throttled: 0 });
    expect(exitCodeFor(error)).toBe(EXIT.usage);
  });

  it("a host name that does not resolve stops at once; a lookup that answers nothing stays a retried timeout", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    const notFound = Object.assign(new Error("getaddrinfo ENOTFOUND api.platform.tset"), {
      code: "ENOTFOUND",
    });
    const { client } = makeClient(server, {
      baseUrl: `http://api.platform.tset:${server.port}`,
      lookup: ((_host: string, _options: unknown, callback: (error: Error) => void) =>
        callback(notFound)) as unknown as LookupFunction,
      retry: { maxAttempts: 6 },
    });
    const tally = newRequestTally();
    const error = await caught(client.getJson("/v1/cdr", {}, { tally }));
    expect(error).toBeInstanceOf(UnreachableHostError);
    expect(error.message).toBe(
      `account acme: cannot reach http://api.platform.tset:${server.port}: its host name does not resolve (ENOTFOUND); check the account's base_url for a typo`,
    );
    expect(tally.requests).toBe(1);
  });

  it("once the host answered, a refused connection is a blip: retried, naming the server (never the key)", async () => {
    const server = await startServer((_req, res) => json(res, 200, {}));
    const port = server.port;
    const { client } = makeClient(server, { retry: { maxAttempts: 2 } });
    expect((await client.getJson("/v1/cdr")).status).toBe(200);
    client.close();
    await server.close();
    const error = await caught(client.getJson("/v1/cdr", { page: 2 }, { stream: "cdrs" }));
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error.message).toMatch(
      new RegExp(
        `^account acme, stream cdrs: GET http://127\\.0\\.0\\.1:${port}/v1/cdr\\?page=2: .*ECONNREFUSED`,
      ),
    );
    expect((error as RetriesExhaustedError).attempts).toBe(2);
    expect(error.message).not.toContain(API_KEY);
  });

  it("a connection reset in the middle of the body is retried", async () => {
    const server = await startServer((_req, res, n) => {
      if (n === 1) {
        res.writeHead(200, { "content-type": "application/json", "content-length": 5000 });
        // Closed once the partial body is written out: the client reads it, then the connection ends.
        res.write('{"items": [{"uuid": "a"}, {"uuid"', () => res.socket?.destroy());
        return;
      }
      if (n === 2) {
        res.writeHead(200, { "content-type": "application/json" }); // chunked
        res.write('{"items": [');
        setTimeout(() => res.socket?.resetAndDestroy(), 20);
        return;
      }
      json(res, 200, { items: [{ uuid: "a" }] });
    });
    const { client, waits } = makeClient(server);
    const response = await client.getJson("/v1/cdr");
    expect(response.body).toEqual({ items: [{ uuid: "a" }] });
    expect(server.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it("a complete response with a truncated JSON body is retried", async () => {
    const server = await startServer((_req, res, n) => {
      if (n === 1) {
        const text = '{"items": [{"uuid": "a"}, {"uu';
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
        return;
      }
      json(res, 200, { items: [] });
    });
    const { client, logLines } = makeClient(server);
    expect((await client.getJson("/v1/cdr")).body).toEqual({ items: [] });
    expect(server.requests).toHaveLength(2);
    expect(logLines.join("")).toContain("unparseable JSON body (HTTP 200, 30 bytes)");
  });

  it("bounds the attempts (default 6) and keeps the last error", async () => {
    const server = await startServer((_req, res) =>
      json(res, 503, { success: false, message: "Service Unavailable" }),
    );
    const { client, waits } = makeClient(server);
    const error = await caught(
      client.getJson("/v1/short-links/metrics", { from: "2025-03-01" }, { stream: "short_link_metrics" }),
    );
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(server.requests).toHaveLength(6);
    expect(waits).toEqual([250, 500, 1000, 2000, 4000]);
    expect(error.context).toMatchObject({
      status: 503,
      platformMessage: "Service Unavailable",
      stream: "short_link_metrics",
    });
  });

  it("stops at once when the caller aborts, without retrying", async () => {
    const controller = new AbortController();
    // The server never answers; the caller aborts once the request has reached it (in flight).
    const server = await startServer(() => controller.abort(new Error("run cancelled")));
    const { client } = makeClient(server, { timeouts: { totalMs: 30_000 } });
    const pending = client.getJson("/v1/cdr", {}, { signal: controller.signal });
    await expect(pending).rejects.toThrow("run cancelled");
    expect(server.requests).toHaveLength(1);
  });
});

describe("http client: errors that are not retried", () => {
  it("401 → AuthError at once, naming the env var to check", async () => {
    const server = await startServer((_req, res) =>
      json(res, 401, { success: false, error: true, message: "Unauthorized" }),
    );
    const { client, waits } = makeClient(server);
    const error = await caught(client.getJson("/v1/cdr", { type: "placed" }, { stream: "cdrs" }));
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toBe(
      `account acme: the platform rejected the API key (401 Unauthorized: "Unauthorized") on GET ${server.baseUrl}/v1/cdr?type=placed; check the API key in env var TELECOM_ACME_API_KEY`,
    );
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("403 → PermissionError naming the permission", async () => {
    const server = await startServer((_req, res) =>
      json(res, 403, { success: false, message: "The service is not provisioned for your account." }),
    );
    const { client } = makeClient(server);
    const error = await caught(
      client.getJson("/v1/billing/invoices", {}, { stream: "invoices", permission: "billing:read" }),
    );
    expect(error).toBeInstanceOf(PermissionError);
    expect(error.message).toContain("the API key lacks the permission billing:read");
    expect(server.requests).toHaveLength(1);
  });

  it("422 → SliceError with the platform's message", async () => {
    const server = await startServer((_req, res) =>
      json(res, 422, { success: false, message: "Missing or invalid parameter from" }),
    );
    const { client } = makeClient(server);
    const error = await caught(client.getJson("/v1/cdr", { from: "yesterday" }, { stream: "cdrs" }));
    expect(error).toBeInstanceOf(SliceError);
    expect(error).not.toBeInstanceOf(RetriesExhaustedError);
    expect(error.context.platformMessage).toBe("Missing or invalid parameter from");
    expect(server.requests).toHaveLength(1);
  });
});

/** A JSON list answer whose `padding` holds `decodedBytes` zeros, gzipped: ~1,000 times smaller on the wire. */
function gzipBomb(decodedBytes: number, encode: (data: Buffer) => Buffer = zlib.gzipSync): Buffer {
  const head = Buffer.from('{"items": [], "padding": "');
  const tail = Buffer.from('"}');
  return encode(Buffer.concat([head, Buffer.alloc(decodedBytes, "0"), tail]));
}

describe("http client: a body past the cap once decompressed (issue 32 item 8)", () => {
  const CAP = 4 * 1024 * 1024;

  it("a gzip bomb (100 KB inflating to 100 MB) is refused at the cap, in one line, not retried", async () => {
    const bomb = gzipBomb(100 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(CAP); // passes any cap checked on the wire
    const server = await startServer((_req, res) => {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": bomb.length,
      });
      res.end(bomb);
    });
    const { client, waits } = makeClient(server, { maxBodyBytes: CAP });
    const error = await caught(client.getJson("/v1/cdr", { type: "placed" }, { stream: "cdrs" }));
    expect(error).toBeInstanceOf(SliceError);
    expect(error).not.toBeInstanceOf(RetriesExhaustedError);
    expect(error.message).toMatch(
      new RegExp(
        `^account acme, stream cdrs: GET ${server.baseUrl.replace(/\./g, "\\.")}/v1/cdr\\?type=placed: ` +
          `response body larger than ${CAP} bytes once decompressed \\(gzip\\), \\d+ bytes received; refused, not retried ` +
          `\\(the cap is ${CAP} bytes of decoded body; lower per_page if the platform's pages really are this large\\)$`,
      ),
    );
    expect(error.message).not.toContain("\n");
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("stops reading as soon as the decoded size passes the cap: an endless gzip stream costs a few KB", async () => {
    let sent = 0;
    let closed: () => void = () => {};
    const hungUp = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      const gzip = zlib.createGzip();
      gzip.on("data", (chunk: Buffer) => {
        sent += chunk.length;
        res.write(chunk);
      });
      const zeros = Buffer.alloc(64 * 1024, "0");
      // Zeros for ever, at the pace the socket takes them, until the client hangs up.
      const pump = () => {
        if (res.destroyed) return;
        gzip.write(zeros, () => setImmediate(pump));
      };
      res.on("close", () => {
        gzip.destroy();
        closed();
      });
      gzip.write('{"items": [], "padding": "');
      pump();
    });
    const { client } = makeClient(server, { maxBodyBytes: CAP });
    const started = Date.now();
    const error = await caught(client.getJson("/v1/cdr"));
    await hungUp;
    expect(error.message).toContain(`response body larger than ${CAP} bytes once decompressed (gzip)`);
    expect(Date.now() - started).toBeLessThan(5_000);
    // 4 MiB of zeros gzip to about 4 KB: the client hung up long before 1 MB went out.
    expect(sent).toBeLessThan(1024 * 1024);
    expect(server.requests).toHaveLength(1);
  });

  it("the same cap holds for deflate and br, and for a body announced larger than the cap", async () => {
    const bodies: [string, Buffer][] = [
      ["deflate", gzipBomb(16 * 1024 * 1024, zlib.deflateSync)],
      ["br", gzipBomb(16 * 1024 * 1024, zlib.brotliCompressSync)],
    ];
    for (const [encoding, body] of bodies) {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-encoding": encoding });
        res.end(body);
      });
      const { client } = makeClient(server, { maxBodyBytes: CAP });
      const error = await caught(client.getJson("/v1/cdr"));
      expect(error.message, encoding).toContain(`once decompressed (${encoding})`);
      expect(server.requests).toHaveLength(1);
    }
    const announced = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": CAP + 1 });
      res.write("{");
    });
    const { client } = makeClient(announced, { maxBodyBytes: CAP });
    const error = await caught(client.getJson("/v1/cdr"));
    expect(error.message).toContain(`response body larger than ${CAP} bytes, announced as ${CAP + 1} bytes`);
  });

  it("a body under the cap once decompressed loads as before", async () => {
    const items = Array.from({ length: 2000 }, (_, i) => ({ uuid: `call-${i}`, duration: i }));
    const body = zlib.gzipSync(JSON.stringify({ items }));
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(body);
    });
    const { client } = makeClient(server, { maxBodyBytes: CAP });
    expect((await client.getJson("/v1/cdr")).body).toEqual({ items });
  });
});

describe("http client: the API key never leaks", () => {
  it("appears in no error (message, stack, context, causes) nor log line, even when the server echoes it", async () => {
    const echo = `invalid token ${API_KEY}`;
    const scenarios: [string, Handler, Partial<ApiClientOptions>][] = [
      [
        "401",
        (_q, res) => json(res, 401, { success: false, error: true, message: `Unauthorized: ${API_KEY}` }),
        {},
      ],
      ["403", (_q, res) => json(res, 403, { success: false, message: echo }), {}],
      ["400", (_q, res) => json(res, 400, { success: false, message: echo }), {}],
      [
        "500 text",
        (_q, res) => res.writeHead(500, { "content-type": "text/html" }).end(`<h1>${echo}</h1>`),
        {},
      ],
      ["429", (_q, res) => json(res, 429, { message: echo }), {}],
      ["hang", () => {}, { timeouts: { totalMs: 100 } }],
      ["reset", (_q, res) => res.socket?.destroy(), {}],
    ];
    for (const [name, handler, overrides] of scenarios) {
      const server = await startServer(handler);
      const { client, logLines } = makeClient(server, { retry: { maxAttempts: 2 }, ...overrides });
      const error = await caught(client.getJson("/v1/cdr", { from: "2025-03-01" }, { stream: "cdrs" }));
      const visible = everythingVisible(error);
      expect(visible, name).not.toContain(API_KEY);
      expect(logLines.join("\n"), name).not.toContain(API_KEY);
      expect(String(error), name).toContain("account acme");
    }
  });

  it("rejects credentials in the base URL without echoing them", () => {
    const attempt = () =>
      createApiClient({ baseUrl: `http://user:${API_KEY}@127.0.0.1:1`, apiKey: API_KEY, account: "acme" });
    expect(attempt).toThrow(UsageError);
    expect(
      everythingVisible(
        (() => {
          try {
            attempt();
          } catch (e) {
            return e;
          }
        })(),
      ),
    ).not.toContain(API_KEY);
  });
});
