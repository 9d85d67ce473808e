import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { declaredForeignKeys, foreignKeyName } from "../../src/transform/mart-foreign-keys.js";

/** A manifest's model node as dbt writes it (the fields the declaration reader looks at). */
function model(name: string, foreignKeys?: unknown[], alias = name) {
  return {
    resource_type: "model",
    name,
    alias,
    config: foreignKeys === undefined ? {} : { meta: { foreign_keys: foreignKeys } },
  };
}

describe("declaredForeignKeys", () => {
  it("reads each model's meta.foreign_keys with the relations' names, the referenced columns defaulting to the same names", () => {
    const keys = declaredForeignKeys({
      "model.p.fct_calls": model("fct_calls", [
        { columns: ["account", "trunk_name"], to: "dim_trunks" },
        { columns: ["call_date"], to: "dim_dates", to_columns: ["calendar_date"] },
      ]),
      "model.p.dim_trunks": model("dim_trunks"),
      "model.p.dim_dates": model("dim_dates", undefined, "dates"),
      "test.p.x": {
        resource_type: "test",
        name: "x",
        config: { meta: { foreign_keys: [{ columns: ["a"], to: "fct_calls" }] } },
      },
    });
    expect(keys).toEqual([
      {
        from: "fct_calls",
        columns: ["account", "trunk_name"],
        to: "dim_trunks",
        toColumns: ["account", "trunk_name"],
      },
      { from: "fct_calls", columns: ["call_date"], to: "dates", toColumns: ["calendar_date"] },
    ]);
    expect(keys.map(foreignKeyName)).toEqual([
      "fct_calls_account_trunk_name_fkey",
      "fct_calls_call_date_fkey",
    ]);
  });

  it("leaves out a declaration naming no model or pairing different numbers of columns", () => {
    const keys = declaredForeignKeys({
      "model.p.f": model("f", [
        { columns: ["a"], to: "missing" },
        { columns: ["a", "b"], to: "d", to_columns: ["a"] },
        { columns: [], to: "d" },
        { to: "d" },
      ]),
      "model.p.d": model("d"),
    });
    expect(keys).toEqual([]);
  });

  it("every key the project declares is valid: its marts exist, its name fits Postgres' 63 characters", async () => {
    const dir = path.resolve("dbt/models/marts");
    const files = await readdir(dir, { recursive: true });
    const nodes: Record<string, ReturnType<typeof model>> = {};
    let declarations = 0;
    for (const file of files.filter((f) => f.endsWith(".sql"))) {
      const name = path.basename(file, ".sql");
      nodes[`model.p.${name}`] = model(name);
    }
    for (const file of files.filter((f) => f.endsWith(".yml"))) {
      const doc = parse(await readFile(path.join(dir, file), "utf8")) as {
        models?: { name: string; config?: { meta?: { foreign_keys?: unknown[] } } }[];
      };
      for (const m of doc?.models ?? []) {
        const declared = m.config?.meta?.foreign_keys;
        if (declared === undefined) continue;
        declarations += declared.length;
        nodes[`model.p.${m.name}`] = model(m.name, declared);
      }
    }
    const keys = declaredForeignKeys(nodes);
    expect(declarations).toBeGreaterThan(0);
    expect(keys).toHaveLength(declarations);
    for (const key of keys) expect(foreignKeyName(key).length, foreignKeyName(key)).toBeLessThanOrEqual(63);
  });
});
