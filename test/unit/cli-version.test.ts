import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { versionText } from "../../src/cli/version-text.js";

describe("--version", () => {
  it("prints the package's version, the last migration's number and the lock's dbt-core", () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    const last = readdirSync("sql/migrations").sort().at(-1)!;
    const dbt = /dbt-core==([0-9.]+)/.exec(readFileSync("dbt/requirements.lock", "utf8"))![1];
    expect(versionText()).toBe(
      `telecom-etl ${version} (warehouse schema ${last.slice(0, 4)}, dbt-core ${dbt})`,
    );
    expect(versionText()).toMatch(
      /^telecom-etl \d+\.\d+\.\d+ \(warehouse schema \d{4}, dbt-core \d+\.\d+\.\d+\)$/,
    );
  });
});
