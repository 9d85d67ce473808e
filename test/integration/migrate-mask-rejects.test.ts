import { sql } from "kysely";
import { isCredentialName } from "../../src/core/known-secrets.js";
import { migrateToLatest } from "../../src/warehouse/connection/migrate.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { migrateBefore } from "../helpers/migrate-before.js";

/**
 * Migration 0016 (issue 18 item 12): rejects stored before credentials were masked by name in any
 * spelling lose the keys they hold in clear; every other field, and every other row, is kept.
 */
describe("migration 0016: credentials in stored rejects", () => {
  it("masks every credential-named field of a stored raw row, the way the loader now does", async ({
    createDatabase,
  }) => {
    const database = await createDatabase({ migrate: false });
    const db = database.warehouse.db;
    await migrateBefore(db, "0016");
    const names = [
      "apiKey",
      "api-key",
      "API_KEY",
      "apikey",
      "accessToken",
      "access_token",
      "token",
      "clientSecret",
      "password",
      "monkey",
      "keyword",
      "sip_uri",
      "tokens_used",
    ];
    const raw = Object.fromEntries(names.map((name) => [name, `value-of-${name}`]));
    await sql`
      INSERT INTO etl.rejects (account, stream, slice, raw, issues)
      VALUES ('acme', 'sub_accounts', 'full', ${JSON.stringify({ ...raw, id: 7, nothing: null, apiKey2: null })}::jsonb, '[]'),
             ('acme', 'cdrs', '2026-08-01..2026-08-02', '["not", "an", "object"]', '[]')`.execute(db);

    expect((await migrateToLatest(db)).applied).toContain("0016_mask_credentials_in_rejects");

    const stored = await sql<{ raw: unknown }>`SELECT raw FROM etl.rejects ORDER BY id`.execute(db);
    const expected = Object.fromEntries(
      names.map((name) => [name, isCredentialName(name) ? "***" : `value-of-${name}`]),
    );
    expect(stored.rows[0]?.raw).toEqual({ ...expected, id: 7, nothing: null, apiKey2: null });
    expect(Object.values(expected).filter((v) => v === "***")).toHaveLength(9);
    expect(stored.rows[1]?.raw).toEqual(["not", "an", "object"]);
  });
});
