import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";

/** `transform --select` with a selection dbt matches to nothing is a usage error, not a silent success. */
describe("transform --select (CLI, real dbt)", () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    await db?.drop();
  });

  it("a selection matching no model: one line naming it, exit 2", async () => {
    const result = await runCli(["transform", "--select", "nosuch"], {
      env: { DATABASE_URL: db.url },
      timeoutMs: 180_000,
    });
    expect(result.code, result.stderr.slice(-2000)).toBe(2);
    expect(result.stdout).toBe("");
    const lines = result.stderr
      .trim()
      .split("\n")
      .filter((line) => !line.startsWith("{"));
    expect(lines).toEqual(["telecom-etl: dbt selected nothing for --select nosuch"]);
  });
});
