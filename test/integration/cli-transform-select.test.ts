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

  it("dbt's progress is logged as each node finishes: N of M, every node once", async ({ database: db }) => {
    const result = await runCli(["transform", "--select", "stg_etl__stream_windows"], {
      env: { DATABASE_URL: db.url },
      timeoutMs: 180_000,
    });
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    const nodes = result.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { msg: string; index?: number; total?: number })
      .filter((record) => record.msg.startsWith("dbt build "));
    expect(nodes.length).toBeGreaterThan(1); // the model and its tests
    for (const node of nodes) {
      expect(node.msg).toMatch(/^dbt build \d+ of \d+: (model|test) \S+ (success|pass)$/);
      expect(node.total).toBe(nodes.length);
    }
    expect(nodes.map((n) => n.index).sort((a, b) => a! - b!)).toEqual(nodes.map((_, i) => i + 1));
    expect(nodes.some((n) => n.msg.includes("model stg_etl__stream_windows success"))).toBe(true);
  });
});
