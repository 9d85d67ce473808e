import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPORT_MARTS } from "../../src/report/marts-facts.js";
import { projectRoot } from "../../src/transform/run-dbt.js";
import { readmeExampleQueries } from "../integration/readme-queries.js";

/**
 * Each dbt exposure (dbt/models/marts/_exposures.yml) lists exactly the marts its reader reads, as
 * derived from the reader itself: the night report's SQL, the marts a BI page names, the SQL of the
 * analysts' questions. A mart the report starts reading without its exposure saying so fails here.
 */

const ROOT = projectRoot();

/** Every mart model's name (a .sql file under dbt/models/marts). */
function martNames(): Set<string> {
  const files = readdirSync(path.join(ROOT, "dbt/models/marts"), { recursive: true }) as string[];
  return new Set(files.filter((f) => f.endsWith(".sql")).map((f) => path.basename(f, ".sql")));
}

/** The marts an exposure depends on, from its `ref('…')` list. */
function exposureRefs(name: string): string[] {
  const yml = parse(readFileSync(path.join(ROOT, "dbt/models/marts/_exposures.yml"), "utf8")) as {
    exposures: { name: string; depends_on: string[] }[];
  };
  const exposure = yml.exposures.find((e) => e.name === name);
  if (exposure === undefined) throw new Error(`no exposure ${name}`);
  return exposure.depends_on.map((ref) => /^ref\('([a-z0-9_]+)'\)$/.exec(ref)?.[1] ?? ref).sort();
}

/** The relations `analytics_marts.<name>` a text's SQL reads. */
function martsQueried(text: string): string[] {
  return [...text.matchAll(/analytics_marts\.([a-z0-9_]+)/g)].map((m) => m[1]!);
}

/** Each name in `names` once, sorted. */
function distinct(names: Iterable<string>): string[] {
  return [...new Set(names)].sort();
}

describe("dbt exposures list what their readers read", () => {
  it("night_report: the marts src/report's SQL queries and the marts it waits for", () => {
    const dir = path.join(ROOT, "src/report");
    const code = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => readFileSync(path.join(dir, f), "utf8"))
      .join("\n");
    const read = distinct([...martsQueried(code), ...REPORT_MARTS]);
    expect(read.length).toBeGreaterThan(0);
    expect(exposureRefs("night_report")).toEqual(read);
  });

  it.each([
    ["bi_calls_definitions", "docs/bi-calls.md"],
    ["bi_campaigns_definitions", "docs/bi-campaigns.md"],
  ])("%s: the marts %s names", (exposure, page) => {
    const marts = martNames();
    const words = readFileSync(path.join(ROOT, page), "utf8").match(/\b[a-z][a-z0-9_]+\b/g) ?? [];
    const named = distinct(words.filter((word) => marts.has(word)));
    expect(named.length).toBeGreaterThan(0);
    expect(exposureRefs(exposure)).toEqual(named);
  });

  it("analyst_first_questions: the marts the questions' SQL reads", () => {
    const read = distinct(readmeExampleQueries().flatMap(martsQueried));
    expect(read.length).toBeGreaterThan(0);
    expect(exposureRefs("analyst_first_questions")).toEqual(read);
  });
});
