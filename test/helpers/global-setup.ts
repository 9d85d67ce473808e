import type { TestProject } from "vitest/node";
import { silentLogger } from "../../src/log.js";
import { type EmbeddedWarehouse, startEmbeddedWarehouse } from "../../src/warehouse/embedded-postgres.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of a Postgres where the tests may create and drop databases. */
    adminUrl: string;
  }
}

let embedded: EmbeddedWarehouse | undefined;
let stopContainer: (() => Promise<void>) | undefined;

/**
 * Gives the integration tests a real Postgres: TEST_DATABASE_URL if set; a testcontainers Postgres
 * (image `postgres:${TEST_PG_VERSION ?? 17}`) when TEST_PG=container; otherwise the embedded one in
 * `.telecom-etl/test-postgres`, started once for the whole run and stopped at the end.
 */
export async function setup(project: TestProject): Promise<void> {
  if (process.env.TEST_DATABASE_URL) {
    project.provide("adminUrl", process.env.TEST_DATABASE_URL);
    return;
  }
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
    project.provide("adminUrl", container.getConnectionUri());
    return;
  }
  embedded = await startEmbeddedWarehouse({ dir: ".telecom-etl/test-postgres", log: silentLogger });
  project.provide("adminUrl", embedded.url);
}

/** Stops what `setup` started. */
export async function teardown(): Promise<void> {
  await embedded?.stop();
  await stopContainer?.();
}
