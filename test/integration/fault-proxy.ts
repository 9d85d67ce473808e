/**
 * A real HTTP proxy in front of the sandbox for tests that need faults the sandbox cannot place
 * (its faults are per route, not per date or per parameter): a rule sees each request's URL and
 * either answers it itself, rewrites the sandbox's JSON answer (a renamed field, a lowered
 * `pagination.total`, dates shifted by the platform), or lets it through to the sandbox unchanged.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** An answer the proxy gives instead of forwarding: a status and a JSON body (a Buffer is sent as is). */
export interface InjectedAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The sandbox's answer, its JSON body changed by `rewrite` (status and other headers kept). */
export interface RewrittenAnswer {
  readonly rewrite: (body: unknown) => unknown;
}

/**
 * Decides for one request (its URL resolved against the target) whether to answer it or rewrite
 * the sandbox's answer; undefined forwards it.
 */
export type FaultRule = (url: URL) => InjectedAnswer | RewrittenAnswer | undefined;

/**
 * Changes the JSON body the sandbox answered to a forwarded request: returns the body to send
 * instead, or undefined to send the sandbox's bytes unchanged. Only for bodies whose numbers
 * survive `JSON.parse` (not the ledger's exact amounts).
 */
export type BodyRewrite = (url: URL, body: unknown) => unknown;

/** A running proxy: point an account's base URL at `url`; `close` ends it and its connections. */
export interface FaultProxy {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts a proxy to `target` on a free port of 127.0.0.1 that applies `rule` (then `rewrite`) to every request. */
export async function startFaultProxy(
  target: string,
  rule: FaultRule,
  rewrite?: BodyRewrite,
  options: { readonly dropDateHeader?: boolean } = {},
): Promise<FaultProxy> {
  const upstream = new URL(target);
  const server = http.createServer((request, response) => {
    // A platform that sends no Date header: neither the sandbox's nor one Node would add.
    if (options.dropDateHeader === true) response.sendDate = false;
    const kept = (headers: http.IncomingHttpHeaders) => {
      if (options.dropDateHeader !== true) return headers;
      const { date: _date, ...rest } = headers;
      return rest;
    };
    const url = new URL(request.url ?? "/", target);
    const injected = rule(url);
    if (injected !== undefined && "rewrite" in injected) {
      rewriteAnswer(upstream, request, response, injected.rewrite);
      return;
    }
    if (injected !== undefined) {
      response.writeHead(injected.status, { "content-type": "application/json", ...injected.headers });
      response.end(Buffer.isBuffer(injected.body) ? injected.body : JSON.stringify(injected.body));
      return;
    }
    // A body to rewrite must come back uncompressed.
    const { "accept-encoding": _encoding, ...plain } = request.headers;
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: request.url,
        method: request.method,
        headers: rewrite === undefined ? request.headers : plain,
      },
      (answer) => {
        if (rewrite === undefined) {
          response.writeHead(answer.statusCode ?? 502, kept(answer.headers));
          answer.pipe(response);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const original = Buffer.concat(chunks);
          let changed: unknown;
          try {
            changed = rewrite(url, JSON.parse(original.toString("utf8")));
          } catch {
            changed = undefined;
          }
          const body = changed === undefined ? original : Buffer.from(JSON.stringify(changed));
          const {
            "content-length": _length,
            "transfer-encoding": _chunked,
            ...headers
          } = kept(answer.headers);
          response.writeHead(answer.statusCode ?? 502, { ...headers, "content-length": body.length });
          response.end(body);
        });
      },
    );
    forward.on("error", () => response.destroy());
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Forwards `request`, reads the sandbox's whole (uncompressed) JSON answer and sends it back rewritten. */
function rewriteAnswer(
  upstream: URL,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  rewrite: (body: unknown) => unknown,
): void {
  const { "accept-encoding": _encoding, ...headers } = request.headers;
  const forward = http.request(
    { host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers },
    (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: string;
        try {
          body = JSON.stringify(rewrite(JSON.parse(text)));
        } catch {
          body = text;
        }
        const { "content-length": _length, "transfer-encoding": _transfer, ...kept } = answer.headers;
        response.writeHead(answer.statusCode ?? 502, { ...kept, "content-length": Buffer.byteLength(body) });
        response.end(body);
      });
    },
  );
  forward.on("error", () => response.destroy());
  request.pipe(forward);
}

/**
 * A list that lost every row past its first `limit` and says so consistently, whatever page size
 * is asked: its total is at most `limit`, its pages hold only those rows (with `limit` equal to the
 * loader's page size: page 1 is full and says total 100, page 2 is empty, exactly what a list of
 * 100 rows looks like; a `per_page=1` request says 100 too). For the answers `matches` picks (the
 * rows under `items`); undefined (unchanged) for the others.
 */
export function cutListAfter(limit: number, items: string, matches: (url: URL) => boolean): BodyRewrite {
  return (url, body) => {
    if (!matches(url)) return undefined;
    const answer = body as Record<string, unknown> & { pagination: { total: number; per_page: number } };
    const page = Number(url.searchParams.get("page") ?? 1);
    const perPage = answer.pagination.per_page;
    const total = Math.min(answer.pagination.total, limit);
    const keep = Math.max(0, Math.min(perPage, total - (page - 1) * perPage));
    return {
      ...answer,
      [items]: (answer[items] as unknown[]).slice(0, keep),
      pagination: { ...answer.pagination, total, total_pages: Math.ceil(total / perPage) },
    };
  };
}

/** Whether `url` asks for the CDR list (either API revision) of `day` in direction `type`. */
export function isCdrListOf(url: URL, day: string, type: string): boolean {
  return (
    (url.pathname === "/v1/cdr" || url.pathname === "/v1/cdrs") &&
    url.searchParams.get("from") === day &&
    url.searchParams.get("type") === type
  );
}

/** A proxy whose placed CDRs of one day are cut after 100 while `lying.on` ({@link cutListAfter}). */
export interface ShortDayProxy extends FaultProxy {
  /** Set `on` to false and the platform lists the day whole again. */
  readonly lying: { on: boolean };
}

/**
 * A consistent liar in front of the sandbox at `target`: the placed CDRs of `day` lose every row
 * past the first 100 (the day settles short) until `lying.on` is set to false.
 */
export async function startShortDayProxy(target: string, day: string): Promise<ShortDayProxy> {
  const lying = { on: true };
  const proxy = await startFaultProxy(
    target,
    () => undefined,
    cutListAfter(100, "items", (url) => lying.on && isCdrListOf(url, day, "placed")),
  );
  return { url: proxy.url, close: () => proxy.close(), lying };
}
