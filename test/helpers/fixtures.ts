/**
 * Vitest fixtures for the integration tests: a test database, a sandbox, and the two together
 * (optionally behind a fault proxy) as a rig. A test asks for what it needs by destructuring its
 * context; a fixture no test asks for is never set up, and each one is torn down after the last test
 * of its scope: the file for `database`, `sandbox` and `rig` (one of each per file, shared by its
 * tests), the test for the `createDatabase` / `launchSandbox` factories (fresh ones, as many as the
 * test starts, with options per call).
 *
 * Per-file options are option fixtures, set once at the top level of the file with `test.override`
 * (vitest accepts overrides of file-scoped fixtures only there, not inside a `describe`):
 *
 * ```ts
 * import { describe, expect, it } from "./fixtures.js";
 *
 * it.override({ sandboxOptions: { seed: 3, days: 2, accounts: 1 }, databaseOptions: { migrate: false } });
 * it.override("faultRule", () => failingWindow(failing)); // a function value needs the builder form
 *
 * it("loads the truth", async ({ rig }) => { ... rig.sandbox, rig.db, rig.apiUrl ... });
 * it("gets its own", async ({ createDatabase, launchSandbox }) => {
 *   const db = await createDatabase({ migrate: false }); // dropped after this test
 *   const twin = await launchSandbox({ seed: 4 }); // closed after this test
 * });
 * ```
 *
 * What a file derives from them once (a CLI environment, a config directory, a client bound to the
 * sandbox) is a file fixture of its own: `const it = base.extend("env", { scope: "file" }, ({ rig }) => ...)`.
 * A test may rename what it takes: `async ({ sandbox: capped }) => ...`.
 */

import type { SandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import { type RunningSandbox, startSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { test as base } from "vitest";
import { type FaultRule, startFaultProxy } from "../integration/fault-proxy.js";
import { claimFileDatabaseName, createTestDatabase, type TestDatabase } from "./test-database.js";

export { describe, expect } from "vitest";

/** Options of `createTestDatabase` (migrated unless `migrate: false`). */
export type TestDatabaseOptions = NonNullable<Parameters<typeof createTestDatabase>[0]>;

/** The file's sandbox and test database, with the fault proxy in front when the file sets a `faultRule`. */
export interface SandboxRig {
  readonly sandbox: RunningSandbox;
  readonly db: TestDatabase;
  /** Where accounts point: the proxy when there is one, else the sandbox. */
  readonly apiUrl: string;
}

/** Runs the closers in reverse order of registration (the first one started is the last one stopped). */
function closerList(): { add(closer: () => Promise<void>): void; closeAll(): Promise<void> } {
  const closers: (() => Promise<void>)[] = [];
  return {
    add: (closer) => void closers.push(closer),
    closeAll: async () => {
      for (const closer of closers.splice(0).reverse()) await closer();
    },
  };
}

/** `test` (alias `it`) with the integration fixtures; see the module comment for how a file uses it. */
export const test = base
  /** Options of the file's `sandbox` (and `rig`); override at the file's top level. */
  .extend("sandboxOptions", { scope: "file" }, {} as SandboxOptions)
  /** Options of the file's `database` (and `rig`). */
  .extend("databaseOptions", { scope: "file" }, {} as TestDatabaseOptions)
  /** A rule for a fault proxy between the rig's accounts and its sandbox; none by default. */
  .extend("faultRule", { scope: "file" }, (): FaultRule | undefined => undefined)
  /** One database for the whole file (named by slot, see claimFileDatabaseName), dropped after its last test. */
  .extend("database", { scope: "file" }, async ({ databaseOptions }, { onCleanup }) => {
    const claimed = await claimFileDatabaseName();
    const database = await createTestDatabase({ name: claimed.name, ...databaseOptions }).catch(
      async (error: unknown) => {
        await claimed.release();
        throw error;
      },
    );
    onCleanup(async () => {
      try {
        await database.drop();
      } finally {
        await claimed.release();
      }
    });
    return database;
  })
  /** One sandbox for the whole file, started with `sandboxOptions`, closed after its last test. */
  .extend("sandbox", { scope: "file" }, async ({ sandboxOptions }, { onCleanup }) => {
    const sandbox = await startSandbox(sandboxOptions);
    onCleanup(() => sandbox.close());
    return sandbox;
  })
  /** The file's sandbox and database, and the proxy applying `faultRule` when there is one. */
  .extend("rig", { scope: "file" }, async ({ sandbox, database, faultRule }, { onCleanup }) => {
    const proxy = faultRule === undefined ? undefined : await startFaultProxy(sandbox.url, faultRule);
    if (proxy !== undefined) onCleanup(() => proxy.close());
    return { sandbox, db: database, apiUrl: proxy?.url ?? sandbox.url } satisfies SandboxRig as SandboxRig;
  })
  /** Creates a fresh database for this test only (as many as it asks for); each is dropped after it. */
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this destructuring; it needs nothing
  .extend("createDatabase", async ({}, { onCleanup }) => {
    const open = closerList();
    onCleanup(() => open.closeAll());
    return async (options: TestDatabaseOptions = {}): Promise<TestDatabase> => {
      const database = await createTestDatabase(options);
      open.add(() => database.drop());
      return database;
    };
  })
  /** Starts a sandbox for this test only (as many as it asks for, each with its options); each is closed after it. */
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this destructuring; it needs nothing
  .extend("launchSandbox", async ({}, { onCleanup }) => {
    const open = closerList();
    onCleanup(() => open.closeAll());
    return async (options: SandboxOptions = {}): Promise<RunningSandbox> => {
      const sandbox = await startSandbox(options);
      open.add(() => sandbox.close());
      return sandbox;
    };
  });

/** The same as `test`. */
export const it = test;
