import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { requestSignature } from "../faults/fault-injector.js";
import type { RequestFault } from "../faults/fault-profile.js";
import { realSleep } from "../ports.js";
import { handleAdmin } from "../routes/admin-routes.js";
import { PLATFORM_HANDLERS } from "../routes/platform-handlers.js";
import { httpDate } from "../sandbox-clock.js";
import type { SandboxRuntime } from "../sandbox-runtime.js";
import { worldView } from "../world-view.js";
import { deliver, send } from "./deliver.js";
import {
  errorResponse,
  forbidden,
  json,
  notFound,
  ParamError,
  type SandboxRequest,
  type SandboxResponse,
} from "./http-kit.js";
import { authenticate, authorize } from "./key-registry.js";
import { Router } from "./router.js";

const MAX_BODY = 1_000_000;

function readBody(req: IncomingMessage): Promise<string> {
  if (req.method === "GET" || req.method === "HEAD") {
    req.resume();
    return Promise.resolve("");
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) reject(new ParamError(400, "body"));
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function clientIp(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? "";
  return address.startsWith("::ffff:") ? address.slice(7) : address === "::1" ? "127.0.0.1" : address;
}

/** The outcome of one platform request, before it is written. */
interface Outcome {
  readonly route: string;
  readonly response: SandboxResponse | "hang";
  readonly fault: RequestFault | null;
  readonly salt: number;
}

const tooManyRequests = (retryAfterSeconds: number | null): SandboxResponse => ({
  ...errorResponse(429, "Too Many Requests"),
  ...(retryAfterSeconds === null ? {} : { headers: { "retry-after": String(retryAfterSeconds) } }),
});

/** Error answers of request faults; a 502 comes from a proxy, so it is HTML. */
function faultResponse(fault: RequestFault, retryAfterSeconds: number): SandboxResponse | null {
  switch (fault) {
    case "http429":
      return tooManyRequests(retryAfterSeconds);
    case "http429NoRetryAfter":
      return tooManyRequests(null);
    case "http500":
      return errorResponse(500, "Internal Server Error");
    case "http502":
      return {
        status: 502,
        body: "<html><body><h1>502 Bad Gateway</h1></body></html>",
        contentType: "text/html",
      };
    case "http503":
      return errorResponse(503, "Service Unavailable");
    default:
      return null;
  }
}

/** Answers one platform request: auth (401), route (404/405), permission and IP (403), rate limit and faults, handler (400/422). */
async function platformOutcome(
  runtime: SandboxRuntime,
  router: Router,
  request: SandboxRequest,
  signal: AbortSignal,
): Promise<Outcome> {
  const key = authenticate(runtime.keys, request);
  const match = router.match(request.method, request.path);
  const route = match.kind === "found" ? `${match.handler.method} ${match.handler.path}` : "unmatched";
  const plain = (response: SandboxResponse): Outcome => ({ route, response, fault: null, salt: 0 });
  if ("status" in key) return plain(key);
  if (match.kind === "not-found") return plain(notFound());
  if (match.kind === "method-not-allowed") return plain(errorResponse(405, "Method not allowed"));
  const denied = authorize(key, request, match.permission, match.handler.forbiddenExtra);
  if (denied) return plain(denied);
  if (!runtime.state.isEnabled(key.account)) return plain(forbidden(match.handler.forbiddenExtra));
  runtime.calls.pump();
  const waitMs = runtime.limiter.take(key.value, Date.now());
  if (waitMs > 0) {
    runtime.faults.count("rateLimited");
    return plain(tooManyRequests(Math.ceil(waitMs / 1000)));
  }
  const faults = runtime.faults.decide(route, () =>
    requestSignature(request.method, request.path, request.query, key.account.index),
  );
  const profile = runtime.faults.profile;
  if (faults.request === "hang") return { route, response: "hang", fault: "hang", salt: faults.salt };
  const failed = faults.request ? faultResponse(faults.request, profile.retryAfterSeconds) : null;
  if (failed) return { route, response: failed, fault: faults.request, salt: faults.salt };
  if (faults.request === "latencySpike") await realSleep(profile.latencySpikeMs, signal);
  const response = await match.handler.handle({
    runtime,
    request,
    key,
    account: key.account,
    params: match.params,
    faults,
  });
  return { route, response, fault: faults.request, salt: faults.salt };
}

/**
 * Every answer tells the platform's time as the sandbox clock sees it when the answer is written
 * (plus `clockSkewMs`), in place of the wall clock Node would send, so a client can read the
 * platform's clock (and notice a skew) from any answer.
 */
function setDateHeader(runtime: SandboxRuntime, res: ServerResponse): void {
  res.setHeader("date", httpDate(runtime.clock.now() + runtime.options.clockSkewMs));
}

/** Creates (does not start) the HTTP server of a sandbox runtime; aborting `signal` ends pending hangs and sleeps. */
export function createSandboxServer(runtime: SandboxRuntime, signal: AbortSignal): Server {
  const router = new Router(PLATFORM_HANDLERS, runtime.options.apiRevision);
  const server = createServer((req, res) => {
    void (async () => {
      let outcome: Outcome = { route: "unmatched", response: notFound(), fault: null, salt: 0 };
      try {
        const url = new URL(req.url ?? "/", "http://sandbox.local");
        const request: SandboxRequest = {
          method: req.method ?? "GET",
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          ip: clientIp(req),
          body: await readBody(req),
        };
        const admin = handleAdmin(runtime, request, () => worldView(runtime));
        if (admin) {
          setDateHeader(runtime, res);
          send(res, admin);
          return;
        }
        if (runtime.options.latencyMs > 0) await realSleep(runtime.options.latencyMs, signal);
        outcome = await platformOutcome(runtime, router, request, signal);
      } catch (error) {
        if (signal.aborted) {
          res.destroy();
          return;
        }
        const response =
          error instanceof ParamError
            ? errorResponse(error.status, error.message)
            : json(500, { success: false, message: "Internal sandbox error" });
        outcome = { ...outcome, response, fault: null };
      }
      const { route, response, fault, salt } = outcome;
      if (response === "hang") {
        runtime.stats.record(route, "hang");
        await realSleep(runtime.faults.profile.hangMs, signal).catch(() => undefined);
        res.destroy();
        return;
      }
      runtime.stats.record(route, fault === "reset" ? "reset" : response.status);
      setDateHeader(runtime, res);
      deliver(res, response, fault, salt);
    })();
  });
  server.keepAliveTimeout = 30_000;
  return server;
}
