/**
 * A real HTTP proxy in front of the sandbox for tests that need faults the sandbox cannot place
 * (its faults are per route, not per date or per parameter): a rule sees each request's URL and
 * either answers it itself or lets it through to the sandbox unchanged.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** An answer the proxy gives instead of forwarding: a status and a JSON body. */
export interface InjectedAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Decides for one request (its URL resolved against the target) whether to answer it; undefined forwards it. */
export type FaultRule = (url: URL) => InjectedAnswer | undefined;

/** A running proxy: point an account's base URL at `url`; `close` ends it and its connections. */
export interface FaultProxy {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts a proxy to `target` on a free port of 127.0.0.1 that applies `rule` to every request. */
export async function startFaultProxy(target: string, rule: FaultRule): Promise<FaultProxy> {
  const upstream = new URL(target);
  const server = http.createServer((request, response) => {
    const injected = rule(new URL(request.url ?? "/", target));
    if (injected !== undefined) {
      response.writeHead(injected.status, { "content-type": "application/json", ...injected.headers });
      response.end(JSON.stringify(injected.body));
      return;
    }
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: request.url,
        method: request.method,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
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
