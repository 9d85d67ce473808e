import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/** `transform --select` with a selection dbt matches to nothing is a usage error, not a silent success. */
describe("transform --select (CLI, real dbt)", () => {
  it("a selection matching no model: one line naming it, exit 2", async ({ database: db }) => {
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
