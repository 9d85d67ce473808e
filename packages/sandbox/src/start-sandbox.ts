import type { AddressInfo } from "node:net";
import { createSandboxServer } from "./http/sandbox-server.js";
import { resolveSandboxOptions, type SandboxOptions } from "./sandbox-options.js";
import { SandboxRuntime } from "./sandbox-runtime.js";
import type { SandboxWorld } from "./world.js";

/** A running sandbox. */
export interface RunningSandbox {
  /** Base URL of the platform API, e.g. `http://127.0.0.1:4010` (no trailing slash). */
  readonly url: string;
  /** The seeded world: accounts with `name` and `apiKey`, trunks, numbers, tokens. */
  readonly world: SandboxWorld;
  /** The runtime (clock, stores, keys) for in-process tests and tools. */
  readonly runtime: SandboxRuntime;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Starts the platform sandbox on `options.port` (0 = a free port) and resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const resolved = resolveSandboxOptions(options);
  const runtime = new SandboxRuntime(resolved);
  const stop = new AbortController();
  const server = createSandboxServer(runtime, stop.signal);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = resolved.host.includes(":") ? `[${resolved.host}]` : resolved.host;
  return {
    url: `http://${host}:${port}`,
    world: runtime.world,
    runtime,
    close: () =>
      new Promise<void>((resolve, reject) => {
        stop.abort();
        runtime.calls.stop();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
