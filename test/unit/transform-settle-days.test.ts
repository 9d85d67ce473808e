import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DBT_SETTLE_DAYS } from "../../src/transform/old-landing-changes.js";

/**
 * The transform decides whether older landing changes need a `--full-refresh` from dbt's var
 * settle_days (src/transform/old-landing-changes.ts): the constant must be the value dbt builds
 * with, the default every `var('settle_days', N)` of the project names, unset in dbt_project.yml.
 */
const DBT = path.resolve(import.meta.dirname, "../../dbt");

function sqlFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".sql"))
    .map((file) => path.join(folder, file));
}

describe("dbt's settle_days", () => {
  it("is the transform's DBT_SETTLE_DAYS in every macro and model, and dbt_project.yml does not override it", () => {
    const defaults = new Set<number>();
    for (const file of [...sqlFiles(path.join(DBT, "macros")), ...sqlFiles(path.join(DBT, "models"))]) {
      for (const match of readFileSync(file, "utf8").matchAll(
        /var\(\s*['"]settle_days['"]\s*,\s*(\d+)\s*\)/g,
      ))
        defaults.add(Number(match[1]));
    }
    expect([...defaults]).toEqual([DBT_SETTLE_DAYS]);
    const project = parse(readFileSync(path.join(DBT, "dbt_project.yml"), "utf8")) as {
      vars?: Record<string, unknown>;
    };
    expect(project.vars?.settle_days).toBeUndefined();
  });
});
