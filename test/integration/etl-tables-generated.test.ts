import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "../helpers/fixtures.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const COMMITTED = "src/warehouse/connection/etl-tables.generated.ts";

describe("the etl tables' Kysely types", () => {
  it("are what kysely-codegen reads from the migrated schema (else: run `npm run db:types`)", async ({
    database,
  }) => {
    // The file's database is a copy of the run's template, which every migration built.
    const dir = await mkdtemp(path.join(tmpdir(), "etl-tables-"));
    try {
      const generated = path.join(dir, "etl-tables.generated.ts");
      await promisify(execFile)(process.execPath, [
        path.join(ROOT, "scripts/db-types.mjs"),
        "--url",
        database.url,
        "--out-file",
        generated,
      ]);
      const [fresh, committed] = await Promise.all([
        readFile(generated, "utf8"),
        readFile(path.join(ROOT, COMMITTED), "utf8"),
      ]);
      expect(
        committed,
        `${COMMITTED} differs from the migrated schema (a migration or .kysely-codegenrc.yaml changed): run \`npm run db:types\` and commit the result`,
      ).toBe(fresh);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
