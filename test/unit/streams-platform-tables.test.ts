import type { Insertable, Selectable } from "kysely";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { PlatformTables } from "../../src/streams/platform-tables.js";
import { STREAMS, type StreamName } from "../../src/streams/registry.js";

/**
 * `PlatformTables` is mapped from the registry's declarations at the type level, so these are type
 * assertions: `make check`'s typecheck (tsc over test/) fails when one no longer holds; at run time
 * `expectTypeOf` does nothing, and the runtime expectations pin what the types were checked against.
 */
type Row<Name extends keyof PlatformTables> = Selectable<PlatformTables[Name]>;

/** The child tables some streams' rows feed (their parent's stream name is not their table's). */
const CHILD_TABLES = ["platform.transcription_turns", "platform.validation_results"] as const;

describe("PlatformTables", () => {
  it("names every landing table of the registry, streams' and child tables', and nothing else", () => {
    // A stream whose table name widened to `string` would turn the type into an index signature.
    expectTypeOf<string extends keyof PlatformTables ? true : false>().toEqualTypeOf<false>();
    expectTypeOf<keyof PlatformTables>().toEqualTypeOf<
      `platform.${StreamName}` | (typeof CHILD_TABLES)[number]
    >();
    const tables = Object.values(STREAMS).flatMap((s) => [
      s.table,
      ...(s.children ?? []).map((c) => c.table),
    ]);
    expect(tables.map((t) => t.name).sort()).toEqual(
      [...Object.keys(STREAMS).map((name) => `platform.${name}`), ...CHILD_TABLES].sort(),
    );
  });

  it("types each declared column as pg reads it, with the metadata and write-mode columns", () => {
    expectTypeOf<Row<"platform.cdrs">>().toMatchObjectType<{
      _account: string;
      _run_id: number;
      _extracted_at: Date;
      uuid: string;
      date: Date | null;
      duration: number;
      charge: string | null;
    }>();
    expectTypeOf<Row<"platform.invoices">>().toMatchObjectType<{ id: number; from_date: string }>();
    expectTypeOf<Row<"platform.transcription_turns">>().toMatchObjectType<{ turn_index: number }>();
    // replace_window, and replace_all without a key: rows numbered by `_row_ordinal`.
    expectTypeOf<Row<"platform.short_link_metrics">>().toMatchObjectType<{ _row_ordinal: number }>();
    expectTypeOf<Row<"platform.brand_appeals">>().toMatchObjectType<{ _row_ordinal: number }>();
    // history: each version's validity.
    expectTypeOf<Row<"platform.call_webhooks">>().toMatchObjectType<{
      valid_from: Date;
      valid_to: Date | null;
    }>();
    // merge, and replace_all with a key: nothing managed.
    expectTypeOf<Row<"platform.cdrs">>().not.toHaveProperty("_row_ordinal");
    expectTypeOf<Row<"platform.numbers">>().not.toHaveProperty("_row_ordinal");
    expectTypeOf<Row<"platform.numbers">>().not.toHaveProperty("valid_from");
    expectTypeOf<Insertable<PlatformTables["platform.cdrs"]>>().toHaveProperty("_extracted_at");
    const byName = (name: StreamName) => STREAMS[name].table;
    expect([byName("short_link_metrics"), byName("brand_appeals"), byName("call_webhooks")]).toMatchObject([
      { writeMode: "replace_window" },
      { writeMode: "replace_all", key: null },
      { writeMode: "history" },
    ]);
    expect([byName("cdrs"), byName("numbers")]).toMatchObject([
      { writeMode: "merge" },
      { writeMode: "replace_all", key: ["id"] },
    ]);
  });
});
