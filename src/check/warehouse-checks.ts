/**
 * The warehouse half of `telecom-etl check`: migrations current (pending ones listed, an applied
 * file changed since is a failure), and the warehouse's BI role usable: it exists, may connect to
 * this database, can log in, and with TELECOM_ETL_BI_READER_PASSWORD set, logs in with it and
 * reads the marts. It changes nothing: no migration is applied, no role created.
 */
import { sql } from "kysely";
import pg from "pg";
import { describeError } from "../core/errors.js";
import {
  BI_READER_PASSWORD_ENV,
  biReaderRoleFor,
  biReaderRoleRefusal,
  MARTS_SCHEMA,
} from "../warehouse/admin/bi-reader-role.js";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";
import { defaultMigrationsDir, readMigrationFiles } from "../warehouse/connection/migrate.js";
import type { CheckItem } from "./check-item.js";

const subject = "warehouse";

/** Migrations: applied as the files say, or which are pending. */
export async function checkMigrations(
  warehouse: Warehouse,
  dir = defaultMigrationsDir(),
): Promise<CheckItem> {
  const item = "migrations";
  const files = await readMigrationFiles(dir);
  const tables = await sql<{ migrations: string | null; checksums: string | null }>`
    SELECT to_regclass('etl.migrations')::text AS migrations, to_regclass('etl.migration_checksums')::text AS checksums`.execute(
    warehouse.db,
  );
  const applied = new Set<string>();
  if (tables.rows[0]?.migrations) {
    const rows = await sql<{ name: string }>`SELECT name FROM etl.migrations`.execute(warehouse.db);
    for (const row of rows.rows) applied.add(row.name);
  }
  if (tables.rows[0]?.checksums) {
    const recorded = await sql<{ name: string; checksum: string }>`
      SELECT name, checksum FROM etl.migration_checksums`.execute(warehouse.db);
    for (const row of recorded.rows) {
      const file = files.find((f) => f.name === row.name);
      if (file === undefined)
        return {
          subject,
          item,
          status: "fail",
          detail: `migration ${row.name} is applied but its file is missing from sql/migrations: restore it (runs refuse to start)`,
        };
      if (file.checksum !== row.checksum)
        return {
          subject,
          item,
          status: "fail",
          detail: `migration ${row.name}.sql was changed after it was applied: restore the file and add a new migration instead (runs refuse to start)`,
        };
    }
  }
  const pending = files.map((f) => f.name).filter((name) => !applied.has(name));
  if (pending.length === 0) return { subject, item, status: "ok", detail: `all ${files.length} applied` };
  return {
    subject,
    item,
    status: "warn",
    detail: `${pending.length} of ${files.length} pending (${pending.join(", ")}): the next command that loads applies them, or run telecom-etl migrate`,
  };
}

const BI_ROLE_ITEM = "BI role";

function biRoleItem(status: CheckItem["status"], detail: string): CheckItem {
  return { subject, item: BI_ROLE_ITEM, status, detail };
}

/** The warehouse's BI role: there, allowed to connect, able to log in, and reading the marts. */
export async function checkBiRole(
  warehouse: Warehouse,
  configuredRole: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<CheckItem> {
  const { rows } = await sql<{ database: string }>`SELECT current_database() AS database`.execute(
    warehouse.db,
  );
  const database = rows[0]!.database;
  const role = biReaderRoleFor(database, configuredRole);
  const found = await sql<{ can_login: boolean; can_connect: boolean }>`
    SELECT rolcanlogin AS can_login, has_database_privilege(rolname, current_database(), 'CONNECT') AS can_connect
    FROM pg_roles WHERE rolname = ${role}`.execute(warehouse.db);
  const state = found.rows[0];
  if (state === undefined)
    return biRoleItem(
      "warn",
      `${role} does not exist yet: the next command that migrates (telecom-etl migrate) creates it`,
    );
  const refusal = await biReaderRoleRefusal(warehouse.db, role, configuredRole !== undefined);
  if (refusal !== undefined) return biRoleItem("fail", refusal);
  if (!state.can_connect)
    return biRoleItem(
      "fail",
      `${role} may not connect to database ${database}: run telecom-etl migrate (it grants CONNECT), or GRANT CONNECT ON DATABASE ${database} TO ${role}`,
    );
  const password = env[BI_READER_PASSWORD_ENV];
  if (password === undefined || password === "") {
    return state.can_login
      ? biRoleItem(
          "ok",
          `${role} can log in (${BI_READER_PASSWORD_ENV} is not set here, so its password was not tried)`,
        )
      : biRoleItem(
          "warn",
          `${role} cannot log in (NOLOGIN): set ${BI_READER_PASSWORD_ENV} and run telecom-etl migrate, so BI tools can connect`,
        );
  }
  if (!state.can_login)
    return biRoleItem(
      "fail",
      `${role} cannot log in although ${BI_READER_PASSWORD_ENV} is set: run telecom-etl migrate (it sets the password and LOGIN)`,
    );
  return logInAsBiRole(warehouse.url, database, role, password);
}

/** Logs in as the BI role with its password and looks at the marts' schema as it: the item says what it found. */
async function logInAsBiRole(
  warehouseUrl: string,
  database: string,
  role: string,
  password: string,
): Promise<CheckItem> {
  const url = new URL(warehouseUrl);
  const client = new pg.Client({
    host: url.hostname,
    port: Number(url.port || 5432),
    database,
    user: role,
    password,
    connectionTimeoutMillis: 10_000,
    application_name: "telecom-etl check",
  });
  try {
    await client.connect();
    const marts = await client.query<{ usable: boolean | null; relations: number }>(
      `SELECT CASE WHEN to_regnamespace($1) IS NULL THEN NULL ELSE has_schema_privilege($1, 'USAGE') END AS usable,
        (SELECT count(*)::int FROM information_schema.tables WHERE table_schema = $1) AS relations`,
      [MARTS_SCHEMA],
    );
    const { usable, relations } = marts.rows[0]!;
    if (usable === null)
      return biRoleItem(
        "warn",
        `${role} logs in with ${BI_READER_PASSWORD_ENV}; ${MARTS_SCHEMA} is not built yet: run telecom-etl transform`,
      );
    if (!usable)
      return biRoleItem(
        "fail",
        `${role} logs in but may not use schema ${MARTS_SCHEMA}: run telecom-etl transform (dbt grants it)`,
      );
    return biRoleItem(
      "ok",
      `${role} logs in with ${BI_READER_PASSWORD_ENV} and reads ${MARTS_SCHEMA} (${relations} relations)`,
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "28P01")
      return biRoleItem(
        "fail",
        `${role} refuses the password in ${BI_READER_PASSWORD_ENV}: run telecom-etl migrate to set it (every command that migrates does)`,
      );
    return biRoleItem(
      "fail",
      `${role} cannot log in: ${describeError(error)}; check the server's pg_hba.conf for ${role}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
