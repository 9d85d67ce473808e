import { describe, expect, it } from "vitest";
import { describeNewField, jsonTypeOf, unknownFieldsOf } from "../../src/pipeline/extract/unknown-fields.js";

describe("fields the schema does not know", () => {
  it("are named with the JSON type of their first non-null value and the rows that carried them", () => {
    const rows = [
      { columns: {}, extra: null },
      { columns: {}, extra: { zone: null, trace: "ctx-1" } },
      { columns: {}, extra: { zone: 3, tags: ["a"] } },
      { columns: {}, extra: { zone: 4, meta: { a: 1 }, flag: false } },
    ];
    expect(unknownFieldsOf(rows)).toEqual([
      { field: "flag", exampleType: "boolean", rows: 1 },
      { field: "meta", exampleType: "object", rows: 1 },
      { field: "tags", exampleType: "array", rows: 1 },
      { field: "trace", exampleType: "string", rows: 1 },
      { field: "zone", exampleType: "number", rows: 3 },
    ]);
    expect(unknownFieldsOf([{ columns: {}, extra: { gone: null } }])).toEqual([
      { field: "gone", exampleType: "null", rows: 1 },
    ]);
    expect(jsonTypeOf(undefined)).toBe("null");
  });

  it("are reported in one line naming account, stream, window and what to do", () => {
    expect(
      describeNewField({
        field: "fwd_fee",
        exampleType: "string",
        rows: 2391,
        stream: "cdrs",
        account: "acme",
        window: "2026-08-01..2026-08-02",
      }),
    ).toBe(
      'account acme, stream cdrs, window 2026-08-01..2026-08-02: the platform sends a new field "fwd_fee" (string, in 2,391 row(s)) that the loader\'s schema does not know: kept in _extra; map it in packages/platform/src/ if it should be a column (telecom-etl schema lists every such field)',
    );
  });
});
