import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pino } from "pino";
import { runDbt } from "../../src/transform/run-dbt.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * dbt-project-evaluator (vendored in dbt/packages-vendored) checks the project's DAG, tests, docs,
 * structure and naming against dbt Labs' rules. Every finding this project keeps is listed, with
 * its reason, in dbt/seeds/dbt_project_evaluator_exceptions.csv; any other one (the evaluator's
 * tests only warn) fails here. It reads dbt's graph, not the data: an empty warehouse will do.
 */
describe("dbt-project-evaluator", () => {
  it("finds nothing beyond the documented exceptions", { timeout: 300_000 }, async ({ database }) => {
    const workDir = await mkdtemp(path.join(tmpdir(), "dbt-evaluator-"));
    try {
      const result = await runDbt({
        databaseUrl: database.url,
        log: pino({ level: "silent" }),
        workDir,
        args: [
          "build",
          "--select",
          "package:dbt_project_evaluator",
          "dbt_project_evaluator_exceptions",
          "--vars",
          "{project_evaluator: true}",
        ],
      });
      expect(result.ok, result.tail.join("\n")).toBe(true);
      expect(result.summary).toMatch(/PASS=[1-9]/);
      expect(result.warnings.map((w) => `${w.name}: ${w.detail ?? w.status}`)).toEqual([]);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
