import { execFileSync } from "node:child_process";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { silentLogger } from "../../src/core/log.js";
import {
  type EmbeddedWarehouse,
  isEmbeddedServerRunning,
  isProcessAlive,
  startEmbeddedWarehouse,
} from "../../src/warehouse/connection/embedded-postgres.js";
import { createTemplateDatabase, type TemplateDatabase } from "./template-database.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of a Postgres where the tests may create and drop databases. */
    adminUrl: string;
    /** The migrated database on that server each test database is copied from (see template-database.ts). */
    templateDatabase: string;
  }
}

let embedded: EmbeddedWarehouse | undefined;
let stopContainer: (() => Promise<void>) | undefined;
let template: TemplateDatabase | undefined;

/**
 * Gives the integration tests a real Postgres (see {@link startServer}) and, on it, the migrated
 * template their databases are copied from; a rerun in watch mode makes a new template, so an
 * edited or added migration reaches the next copies.
 */
export async function setup(project: TestProject): Promise<void> {
  await buildIfStale();
  const adminUrl = await startServer();
  project.provide("adminUrl", adminUrl);
  const makeTemplate = async () => {
    const previous = template;
    template = await createTemplateDatabase(adminUrl);
    project.provide("templateDatabase", template.name);
    await previous?.drop();
  };
  await makeTemplate();
  project.onTestsRerun(makeTemplate);
}

/**
 * The server's admin URL: TEST_DATABASE_URL if set; a testcontainers Postgres (image
 * `postgres:${TEST_PG_VERSION ?? 17}`) when TEST_PG=container; otherwise the embedded one in
 * `.telecom-etl/test-postgres/<pid>/`, started once for the whole run, stopped and deleted at the end.
 */
async function startServer(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  if (process.env.TEST_PG === "container") {
    const moduleName = "@testcontainers/postgresql";
    const { PostgreSqlContainer } = (await import(moduleName).catch(() => {
      throw new Error(
        "TEST_PG=container needs the optional package: npm install --no-save @testcontainers/postgresql",
      );
    })) as typeof import("./testcontainers-types.js");
    const container = await new PostgreSqlContainer(
      `postgres:${process.env.TEST_PG_VERSION ?? "17"}`,
    ).start();
    stopContainer = async () => void (await container.stop());
    return container.getConnectionUri();
  }
  await removeAbandonedServers(TEST_SERVERS_DIR);
  ownDir = path.join(TEST_SERVERS_DIR, String(process.pid));
  await mkdir(ownDir, { recursive: true, mode: 0o755 });
  embedded = await startEmbeddedWarehouse({ dir: ownDir, log: silentLogger });
  return embedded.url;
}

/**
 * CLI tests spawn the built CLI: rebuild `dist/` when a source file is newer than it, so a plain
 * `npx vitest run` after an edit never tests yesterday's build.
 */
async function buildIfStale(): Promise<void> {
  const built = await stat("dist/src/cli/bin.js").then(
    (s) => s.mtimeMs,
    () => 0,
  );
  const newest = async (dir: string): Promise<number> => {
    let latest = 0;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      latest = Math.max(latest, entry.isDirectory() ? await newest(full) : (await stat(full)).mtimeMs);
    }
    return latest;
  };
  if (built >= Math.max(await newest("src"), await newest("bench"), await newest("sql"))) return;
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
    stdio: "inherit",
  });
}

/** One embedded server per test run (named by the runner's pid), so concurrent runs never share one. */
const TEST_SERVERS_DIR = ".telecom-etl/test-postgres";
let ownDir: string | undefined;

/** Deletes the folders of runs that died (their watchdog already stopped the server). */
async function removeAbandonedServers(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const entry of entries) {
    const server = path.join(dir, entry);
    if (/^\d+$/.test(entry) && !isProcessAlive(Number(entry)) && !(await isEmbeddedServerRunning(server))) {
      await rm(server, { recursive: true, force: true });
    }
  }
}

/** Stops what `setup` started. */
export async function teardown(): Promise<void> {
  await template?.drop();
  await embedded?.stop();
  if (ownDir) await rm(ownDir, { recursive: true, force: true });
  await stopContainer?.();
}
