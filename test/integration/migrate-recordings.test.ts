import { sql } from "kysely";
import { migrateToLatest } from "../../src/warehouse/connection/migrate.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { migrateBefore } from "../helpers/migrate-before.js";

/**
 * Migration 0011 on a warehouse the recordings lookup had written: the old table (call uuid, date,
 * recording_url) gives way to the list's columns, the lookup's per-call states and quarantined
 * single-CDR bodies go, and nothing of the other streams is touched.
 */
describe("migration 0011: recordings become a windowed list", () => {
  it("replaces the lookup's table, its tracked ids and its rejects, and keeps everything else", async ({
    createDatabase,
  }) => {
    const database = await createDatabase({ migrate: false });
    const db = database.warehouse.db;
    await migrateBefore(db, "0011");
    await sql`INSERT INTO etl.runs (command, status, started_at, host, pid) VALUES ('run', 'succeeded', now(), 'test', 1)`.execute(
      db,
    );
    await sql`
      INSERT INTO platform.recordings (_account, uuid, date, recording_url, _run_id, _extracted_at)
      VALUES ('acme', 'call-1', now(), 'https://r.example/call-1.mp3', 1, now())`.execute(db);
    // A warehouse where dbt has run has its staging view on the old table (and views on that).
    await sql`CREATE SCHEMA analytics_staging`.execute(db);
    await sql`
      CREATE VIEW analytics_staging.stg_platform__recordings AS
      SELECT _account AS account, uuid AS call_uuid, recording_url FROM platform.recordings`.execute(db);
    await sql`
      INSERT INTO etl.tracked_requests (kind, account, external_id, status, attempts, first_seen_at, last_seen_at)
      VALUES ('recording', 'acme', 'call-1', 'final', 1, now(), now()),
             ('transcription', 'acme', 'call-1', 'none', 1, now(), now())`.execute(db);
    await sql`
      INSERT INTO etl.rejects (account, stream, slice, raw, issues)
      VALUES ('acme', 'recordings', 'ids:1:call-2', '{"uuid": 7}', '[]'),
             ('acme', 'cdrs', '2026-08-01..2026-08-02', '{"uuid": 7}', '[]')`.execute(db);

    const applied = await migrateToLatest(db);
    expect(applied.applied).toContain("0011_list_recordings_by_window");

    const columns = await sql<{ column_name: string; data_type: string; is_nullable: string }>`
      SELECT column_name, data_type, is_nullable FROM information_schema.columns
      WHERE table_schema = 'platform' AND table_name = 'recordings' ORDER BY ordinal_position`.execute(db);
    expect(columns.rows.map((c) => `${c.column_name} ${c.data_type} ${c.is_nullable}`)).toEqual([
      "_account text NO",
      "id bigint NO",
      "created_at timestamp with time zone NO",
      "duration integer NO",
      "from_number text NO",
      "to_number text NO",
      "call_uuid text NO",
      "url text NO",
      "_run_id bigint NO",
      "_extracted_at timestamp with time zone NO",
      "_extra jsonb YES",
    ]);
    const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
      (await query.execute(db)).rows[0]?.n;
    expect(await count(sql`SELECT count(*)::int AS n FROM platform.recordings`)).toBe(0);
    const tracked = await sql<{ kind: string }>`SELECT kind FROM etl.tracked_requests`.execute(db);
    expect(tracked.rows.map((r) => r.kind)).toEqual(["transcription"]);
    const rejects = await sql<{ stream: string }>`SELECT stream FROM etl.rejects`.execute(db);
    expect(rejects.rows.map((r) => r.stream)).toEqual(["cdrs"]);
  });
});
