import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { FileDurationsReporter } from "./test/helpers/file-durations-reporter.js";

const packages = fileURLToPath(new URL("./packages/", import.meta.url));

/**
 * The workspace packages from their TypeScript sources, as tsconfig.json's `paths` does for the
 * typecheck: tests need no build of packages/platform or packages/sandbox (`@telecom-etl/x/y.js` is
 * packages/x/src/y.ts; `@telecom-etl/x` its index).
 */
const resolve = {
  alias: [
    { find: /^@telecom-etl\/(platform|sandbox)\/(.+)\.js$/, replacement: `${packages}$1/src/$2.ts` },
    { find: /^@telecom-etl\/(platform|sandbox)$/, replacement: `${packages}$1/src/index.ts` },
  ],
};

/**
 * Two projects: `unit` (pure, no I/O beyond memory) and `integration` (a real Postgres, the sandbox
 * over real HTTP, child processes). Integration files each get their own database, so they run in
 * parallel; the global setup starts one embedded Postgres for the whole run (or uses TEST_DATABASE_URL)
 * and migrates one template database there, which each migrated test database is a copy of.
 */
export default defineConfig({
  test: {
    reporters: ["default", new FileDurationsReporter()],
    projects: [
      {
        resolve,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
          // Pure tests (no module mocks, no process.env, no globals) can share one module graph per
          // worker: each file importing it afresh took 45 of the unit suite's 55 s on this machine.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          sequence: { groupOrder: 1 },
          globalSetup: ["test/helpers/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // A failed integration test runs once more; one that then passes is listed at the end of
          // the run ("flaky: ...", FileDurationsReporter) as a bug to mend, not hidden (decision 0114).
          retry: 1,
          pool: "forks",
          maxWorkers: 2,
        },
      },
    ],
  },
});
