import { sql } from "kysely";
import { addEvolvedColumns, listSchemaChanges } from "../../src/warehouse/state/schema-changes.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * `etl.schema_changes` and the landing table's columns move together (schema contract `evolve`):
 * a column is added and recorded once, a racing slice's other type loses to the recorded one, and
 * an `ALTER TABLE` queued behind another session's lock gives up after its lock timeout with one
 * line, instead of blocking the table's readers for as long as that session lasts.
 */
describe("columns added by schema_contract evolve", () => {
  it("are added and recorded once, the first type kept; a locked table is one line after the lock timeout", async ({
    createDatabase,
  }) => {
    const { warehouse } = await createDatabase();
    const run = await warehouse.db
      .insertInto("etl.runs")
      .values({ command: "run" })
      .returning("id")
      .executeTakeFirstOrThrow();
    const place = { runId: Number(run.id), account: "acme", window: "2026-08-02..2026-08-03" };
    const target = { stream: "invoices", table: "platform.invoices" };

    const first = await addEvolvedColumns(warehouse.db, target, place, [
      { field: "tier", columnType: "text" },
    ]);
    expect(first.added.map((c) => [c.field, c.columnType, c.firstRun])).toEqual([
      ["tier", "text", place.runId],
    ]);
    // Another slice that guessed another type: nothing added, the recorded type wins.
    const second = await addEvolvedColumns(warehouse.db, target, { ...place, window: "w2" }, [
      { field: "tier", columnType: "numeric" },
    ]);
    expect(second.added).toEqual([]);
    expect(second.recorded.map((c) => [c.field, c.columnType, c.firstWindow])).toEqual([
      ["tier", "text", "2026-08-02..2026-08-03"],
    ]);
    const type = await sql<{ t: string }>`
      SELECT data_type AS t FROM information_schema.columns
      WHERE table_schema = 'platform' AND table_name = 'invoices' AND column_name = 'tier'`.execute(
      warehouse.db,
    );
    expect(type.rows).toEqual([{ t: "text" }]);

    // A session reading the table holds it: the ALTER gives up after its lock timeout, nothing recorded.
    const reader = await warehouse.pool.connect();
    try {
      await reader.query("BEGIN; LOCK TABLE platform.invoices IN ACCESS SHARE MODE");
      const started = Date.now();
      await expect(
        addEvolvedColumns(warehouse.db, target, place, [{ field: "late", columnType: "boolean" }], 300),
      ).rejects.toThrow(
        "could not add column(s) late to platform.invoices: another session held the table for 0.3 s (a long query?); the window is read again by the next run",
      );
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await reader.query("ROLLBACK");
      reader.release();
    }
    expect((await listSchemaChanges(warehouse.db, { stream: "invoices" })).map((c) => c.field)).toEqual([
      "tier",
    ]);
    const late = await addEvolvedColumns(warehouse.db, target, place, [
      { field: "late", columnType: "boolean" },
    ]);
    expect(late.added.map((c) => c.field)).toEqual(["late"]);
  });
});
