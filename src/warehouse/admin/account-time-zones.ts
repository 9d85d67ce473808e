/**
 * Writes the config's account time zones to etl.account_time_zones before the marts are built: a
 * row per account, its updated_at moved only when the zone changed, so dbt re-processes exactly the
 * accounts whose local dates moved (macro time_zones_changed_since).
 */
import { type Kysely, sql } from "kysely";
import type { AccountTimeZone } from "../../core/account-time-zone.js";
import { UsageError } from "../../core/errors.js";
import type { Database } from "../connection/database.js";

/** Upserts `zones`; returns the accounts whose zone is new or changed. Accounts not given keep their row. */
export async function recordAccountTimeZones(
  db: Kysely<Database>,
  zones: readonly AccountTimeZone[],
): Promise<string[]> {
  if (zones.length === 0) return [];
  await refuseZonesPostgresLacks(db, zones);
  const changed = await db
    .insertInto("etl.account_time_zones")
    .values(zones.map((z) => ({ account: z.account, time_zone: z.timeZone })))
    .onConflict((conflict) =>
      conflict
        .column("account")
        .doUpdateSet({ time_zone: (eb) => eb.ref("excluded.time_zone"), updated_at: sql`now()` })
        .where(sql<boolean>`etl.account_time_zones.time_zone IS DISTINCT FROM excluded.time_zone`),
    )
    .returning("account")
    .execute();
  return changed.map((row) => row.account);
}

/**
 * Postgres converts with its own copy of the tz database, which may lack a zone Node's ICU knows (an
 * old server, a new zone): refused before dbt runs, naming the account, not as a failed model.
 */
async function refuseZonesPostgresLacks(
  db: Kysely<Database>,
  zones: readonly AccountTimeZone[],
): Promise<void> {
  const names = [...new Set(zones.map((z) => z.timeZone.toLowerCase()))];
  const known = await sql<{ name: string }>`
    SELECT lower(name) AS name FROM pg_timezone_names WHERE lower(name) = ANY(${names}::text[])`.execute(db);
  const knownNames = new Set(known.rows.map((row) => row.name));
  const missing = zones.find((z) => !knownNames.has(z.timeZone.toLowerCase()));
  if (missing !== undefined) {
    throw new UsageError(
      `account ${missing.account}: the warehouse's Postgres does not know time zone "${missing.timeZone}" (its tz database is older than Node's); use another name of the zone or update the server's tzdata`,
    );
  }
}
