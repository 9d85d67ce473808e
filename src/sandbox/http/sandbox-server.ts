import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { realSleep } from "../../ports.js";
import { handleAdmin } from "../routes/admin-routes.js";
import { cdrRoutes } from "../routes/cdr-routes.js";
import { invoiceRoutes } from "../routes/invoice-routes.js";
import { shortLinkRoutes } from "../routes/short-link-routes.js";
import type { SandboxRuntime } from "../sandbox-runtime.js";
import { worldView } from "../world-view.js";
import {
  errorResponse,
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

function send(res: ServerResponse, response: SandboxResponse): void {
  const body = Buffer.from(response.body, "utf8");
  res.writeHead(response.status, {
    "content-type": response.contentType ?? "application/json",
    "content-length": body.length,
    ...response.headers,
  });
  res.end(body);
}

/** Answers one platform request: auth (401), route (404/405), permission and IP (403), handler (400/422). */
async function platformResponse(
  runtime: SandboxRuntime,
  router: Router,
  request: SandboxRequest,
): Promise<{ route: string; response: SandboxResponse }> {
  const key = authenticate(runtime.keys, request);
  const match = router.match(request.method, request.path);
  const route = match.kind === "found" ? `${match.handler.method} ${match.handler.path}` : "unmatched";
  if ("status" in key) return { route, response: key };
  if (match.kind === "not-found") return { route, response: notFound() };
  if (match.kind === "method-not-allowed")
    return { route, response: errorResponse(405, "Method not allowed") };
  const denied = authorize(key, request, match.permission);
  if (denied) return { route, response: denied };
  const response = await match.handler.handle({
    runtime,
    request,
    key,
    account: key.account,
    params: match.params,
  });
  return { route, response };
}

/** The platform's routes served by the sandbox. */
export const PLATFORM_HANDLERS = [...cdrRoutes, ...shortLinkRoutes, ...invoiceRoutes];

/** Creates (does not start) the HTTP server of a sandbox runtime. */
export function createSandboxServer(runtime: SandboxRuntime): Server {
  const router = new Router(PLATFORM_HANDLERS);
  const server = createServer((req, res) => {
    void (async () => {
      let route = "unmatched";
      let response: SandboxResponse;
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
          send(res, admin);
          return;
        }
        if (runtime.options.latencyMs > 0) await realSleep(runtime.options.latencyMs);
        ({ route, response } = await platformResponse(runtime, router, request));
      } catch (error) {
        response =
          error instanceof ParamError
            ? errorResponse(error.status, error.message)
            : errorResponse(500, "Internal sandbox error");
      }
      runtime.stats.record(route, response.status);
      send(res, response);
    })();
  });
  server.keepAliveTimeout = 30_000;
  return server;
}
