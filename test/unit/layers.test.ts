import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type IForbiddenRuleType, type IReporterOutput } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const config = require(path.join(ROOT, ".dependency-cruiser.cjs")) as { forbidden: IForbiddenRuleType[] };

/** The rule names the project's layer rules find in `dir` (a tree with a `src` and `packages` of its own). */
async function violationsIn(dir: string): Promise<string[]> {
  const result: IReporterOutput = await cruise(["src", "packages"], {
    baseDir: dir,
    ruleSet: { forbidden: config.forbidden },
    validate: true,
    tsPreCompilationDeps: true,
  });
  if (typeof result.output === "string") throw new Error("expected a cruise result");
  return result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

describe("the layer check (make lint)", () => {
  it("fails on an upward import, a type-only one included, and on a cycle", async () => {
    const found = await violationsIn(path.join(ROOT, "test/fixtures/layers"));
    expect(found).toContain("no-upward-from-warehouse: src/warehouse/upward.ts -> src/pipeline/run-plan.ts");
    expect(found).toContain("no-circular: src/api/first.ts -> src/api/second.ts");
  }, 30_000);

  it("fails on the workspace packages' imports: the contract on the sandbox, the sandbox on the loader, the loader on the sandbox", async () => {
    const found = await violationsIn(path.join(ROOT, "test/fixtures/layers"));
    expect(found).toContain(
      "platform-on-nothing-of-ours: packages/platform/src/reaches-sandbox.ts -> packages/sandbox/src/reaches-loader.ts",
    );
    expect(found).toContain(
      "sandbox-on-contract-only: packages/sandbox/src/reaches-loader.ts -> src/pipeline/run-plan.ts",
    );
    expect(found).toContain(
      "product-without-sandbox: src/report/uses-sandbox.ts -> packages/sandbox/src/reaches-loader.ts",
    );
  }, 30_000);
});
