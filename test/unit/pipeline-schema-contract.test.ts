import { readFileSync } from "node:fs";
import { resolveFaultProfile } from "@telecom-etl/sandbox/faults/fault-profile.js";
import { applyDrift } from "@telecom-etl/sandbox/faults/schema-drift.js";
import { serveRow } from "@telecom-etl/sandbox/faults/served-row.js";
import { describe, expect, it } from "vitest";
import {
  configFileSchema,
  defaultFileSettings,
  type EtlConfig,
  settingsOf,
} from "../../src/config/config.js";
import {
  columnsToAdd,
  contractRefusal,
  contractRows,
  evolvable,
  TYPE_CONFLICT,
  UNKNOWN_FIELD,
} from "../../src/pipeline/extract/schema-contract.js";
import { getStream } from "../../src/streams/registry.js";
import { EVOLVED_COLUMN_TYPES } from "../../src/warehouse/state/schema-changes.js";

const cdrs = getStream("cdrs");
const row = (extra: Record<string, unknown> | null) => ({ columns: { uuid: "u-1" }, extra });

describe("a schema contract's decisions", () => {
  it("evolve types a new field by its most frequent scalar JSON type; nulls, objects and arrays wait", () => {
    const raw = [
      { uuid: "a", score: 1, tag: "x", flag: true, nested: { a: 1 }, empty: null, odd: "1" },
      { uuid: "b", score: 2, tag: null, flag: false, odd: 2 },
      { uuid: "c", score: "3", odd: 3 },
    ];
    expect(columnsToAdd(cdrs, raw, new Map())).toEqual([
      { field: "flag", columnType: "boolean" },
      { field: "odd", columnType: "numeric" },
      { field: "score", columnType: "numeric" },
      { field: "tag", columnType: "text" },
    ]);
    // A field with a column already, and a field the schema declares, ask for nothing.
    expect(columnsToAdd(cdrs, raw, new Map([["score", "numeric"]])).map((c) => c.field)).not.toContain(
      "score",
    );
    expect(columnsToAdd(cdrs, [{ duration: "61" }], new Map())).toEqual([]);
  });

  it("evolve leaves in _extra a name that is no plain identifier, a credential's, or a column the table has", () => {
    expect(evolvable(cdrs, "carrier_score")).toBe(true);
    for (const name of [
      "Carrier",
      "carrier-score",
      "api_key",
      "_extra",
      "_run_id",
      "direction",
      "a".repeat(64),
    ])
      expect(evolvable(cdrs, name), name).toBe(false);
  });

  it("freeze refuses any row with an unknown field, naming it; evolve refuses only a value of another type", () => {
    const freeze = contractRefusal(cdrs, "freeze", new Map())!;
    expect(freeze(row(null))).toBeNull();
    expect(freeze(row({ fwd_fee: "0.1" }))).toMatchObject({ path: "fwd_fee", code: UNKNOWN_FIELD });
    expect(freeze(row({ fwd_fee: "0.1" }))?.message).toContain(
      'field "fwd_fee" is not in the schema of stream cdrs',
    );
    const evolve = contractRefusal(cdrs, "evolve", new Map([["score", "numeric"]]))!;
    expect(evolve(row({ score: 4 }))).toBeNull();
    expect(evolve(row({ score: null }))).toBeNull();
    expect(evolve(row({ other: "x" }))).toBeNull();
    expect(evolve(row({ score: "4" }))).toMatchObject({ path: "score", code: TYPE_CONFLICT });
    const text = contractRefusal(cdrs, "evolve", new Map([["tag", "text"]]))!;
    expect(text(row({ tag: "a\u0000b" }))?.code).toBe("out_of_range");
    // The default and discard refuse nothing: no hook on the parse at all.
    expect(contractRefusal(cdrs, undefined, new Map())).toBeUndefined();
    expect(contractRefusal(cdrs, "discard", new Map())).toBeUndefined();
  });

  it("discard drops and counts; evolve moves evolved fields to their columns; the default leaves the rows alone", () => {
    const rows = [row(null), row({ score: 1, other: "x" }), row({ score: null })];
    const discarded = contractRows("discard", rows, new Map());
    expect(discarded.discardedRows).toBe(2);
    expect(discarded.rows.every((r) => r.extra === null)).toBe(true);
    const evolved = contractRows("evolve", rows, new Map([["score", "numeric"]]));
    expect(evolved.rows).toEqual([
      row(null),
      { columns: { uuid: "u-1", score: 1 }, extra: { other: "x" } },
      { columns: { uuid: "u-1", score: null }, extra: null },
    ]);
    expect(contractRows(undefined, rows, new Map()).rows).toBe(rows);
  });

  it("is read per stream from stream_options, absent by default", () => {
    const file = configFileSchema.parse({ stream_options: { cdrs: { schema_contract: "evolve" } } });
    expect(file.stream_options.cdrs?.schema_contract).toBe("evolve");
    expect(() => configFileSchema.parse({ stream_options: { cdrs: { schema_contract: "lax" } } })).toThrow(
      /freeze|evolve|discard/,
    );
    const config = {
      ...defaultFileSettings(),
      streamOptions: { cdrs: { schemaContract: "discard" } },
    } as unknown as EtlConfig;
    expect(settingsOf(config, "cdrs").schemaContract).toBe("discard");
    expect(settingsOf(config, "messages").schemaContract).toBeUndefined();
  });

  it("types columns with exactly the types the migration admits (one list)", () => {
    const migration = readFileSync(
      new URL("../../sql/migrations/0030_schema_changes.sql", import.meta.url),
      "utf8",
    );
    const admitted = /column_type IN \(([^)]*)\)/.exec(migration)?.[1]?.match(/'[^']+'/g) ?? [];
    expect(admitted.map((t) => t.slice(1, -1)).sort()).toEqual(Object.values(EVOLVED_COLUMN_TYPES).sort());
  });
});

describe("the sandbox adding a field from a day", () => {
  it("adds a seeded value of the type asked, to rows dated that day or later only", () => {
    const r: Record<string, unknown> = { uuid: "u" };
    expect(applyDrift(r, [{ stream: "cdrs", field: "score", change: "add", type: "number" }], 7)).toBe(true);
    expect(typeof r.score).toBe("number");
    const profile = resolveFaultProfile({
      drift: [{ stream: "cdrs", field: "score", change: "add", type: "boolean", from: "2026-08-02" }],
    });
    const day = Date.parse("2026-08-02T00:00:00Z") / 86_400_000;
    const json = '{"uuid":"u"}';
    expect(serveRow(profile, 1, { stream: "cdrs", account: 0, day: day - 1, index: 0 }, json)).toEqual({
      json,
      change: null,
    });
    const served = serveRow(profile, 1, { stream: "cdrs", account: 0, day, index: 0 }, json);
    expect(served.change).toBe("drift");
    expect(typeof (JSON.parse(served.json) as { score: unknown }).score).toBe("boolean");
    expect(() => resolveFaultProfile({ drift: [{ stream: "cdrs", field: "score", change: "add" }] })).toThrow(
      /an add needs `type`/,
    );
  });
});
