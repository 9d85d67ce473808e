import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { describeError, UsageError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import type { Database } from "../connection/database.js";

/**
 * The server-wide role migration 0009 created for every warehouse of a server alike. Roles belong to
 * the server, not to a database: two warehouses on one server shared it (one's password was the
 * other's, and it could read both). Each warehouse now has a role of its own; this one is only
 * stripped of its access to a warehouse that uses another.
 */
export const LEGACY_BI_READER_ROLE = "bi_reader";

/** The environment variable holding the BI role's password; unset or empty leaves the role as it is. */
export const BI_READER_PASSWORD_ENV = "TELECOM_ETL_BI_READER_PASSWORD";

/** The schema BI reads (dbt's `marts` under the default `analytics` prefix). */
export const MARTS_SCHEMA = "analytics_marts";

const ROLE_SUFFIX = "_bi_reader";
/** Longest identifier Postgres keeps (NAMEDATALEN - 1 bytes). */
const MAX_IDENTIFIER = 63;

/**
 * The BI role of the warehouse in database `database`: `configured` when the config names one
 * (`bi_reader_role`), else `<database>_bi_reader`, made a plain identifier (lower case, letters,
 * digits and `_`, not starting with a digit, at most 63 characters). When that changed the name
 * (`Sales-DB`, a very long name), 6 hex characters of the name's hash keep two databases apart
 * (`sales-db` and `sales_db` get different roles).
 */
export function biReaderRoleFor(database: string, configured?: string): string {
  if (configured !== undefined) return configured;
  let base = database.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  if (!/^[a-z_]/.test(base)) base = `wh_${base}`;
  if (base === database && base.length + ROLE_SUFFIX.length <= MAX_IDENTIFIER) return `${base}${ROLE_SUFFIX}`;
  const hash = createHash("sha256").update(database).digest("hex").slice(0, 6);
  const room = MAX_IDENTIFIER - ROLE_SUFFIX.length - hash.length - 1;
  return `${base.slice(0, room)}_${hash}${ROLE_SUFFIX}`;
}

/** The database a warehouse URL names (`postgres` when it names none). */
export function databaseOfUrl(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, "")) || "postgres";
}

const SCRAM_ITERATIONS = 4096;

/**
 * The SCRAM-SHA-256 verifier Postgres stores for `password` (what psql's `\password` sends), so
 * the password itself never reaches the server, its statement log or pg_stat_activity. ASCII
 * passwords need no SASLprep; others are used as their UTF-8 bytes, as libpq does when prep fails.
 */
export function scramSha256Verifier(password: string, salt: Buffer = randomBytes(16)): string {
  const salted = pbkdf2Sync(password.normalize("NFKC"), salt, SCRAM_ITERATIONS, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${SCRAM_ITERATIONS}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}

/**
 * How every role the loader creates begins its comment (migration 0009's `bi_reader` as well, since
 * its first version): what marks a role as the loader's to give a password, LOGIN and grants to.
 */
export const OWNED_ROLE_MARK = "telecom-etl:";

/**
 * Why the loader must not change role `role`, or undefined when it may: the role exists and is not
 * the loader's (its comment lacks {@link OWNED_ROLE_MARK}), or it is the warehouse user itself or a
 * superuser (whatever its comment says). Pointed at the warehouse owner, setting the BI password
 * would replace the owner's and let BI log in as the owner. A role that does not exist yet is
 * fine: the loader creates it with the mark. `configured`: the name came from `bi_reader_role`.
 */
export async function biReaderRoleRefusal(
  db: Kysely<Database>,
  role: string,
  configured: boolean,
): Promise<string | undefined> {
  const found = await sql<{ comment: string | null; is_user: boolean; is_super: boolean }>`
    SELECT shobj_description(r.oid, 'pg_authid') AS comment,
           r.rolname IN (current_user, session_user) AS is_user,
           r.rolsuper AS is_super
    FROM pg_catalog.pg_roles AS r WHERE r.rolname = ${role}`.execute(db);
  const state = found.rows[0];
  if (state === undefined) return undefined;
  const named = configured ? `bi_reader_role names ${role}` : `the BI role ${role}`;
  const fix = `set bi_reader_role to a name no role has yet (the loader creates that role)${configured ? " or leave it unset" : ""}`;
  if (state.is_user || state.is_super) {
    return `${named}, ${state.is_user ? "the warehouse user itself" : "a superuser"}: the loader would replace its password and BI would log in with its rights; ${fix}`;
  }
  if (state.comment?.startsWith(OWNED_ROLE_MARK)) return undefined;
  return `${named}, a role telecom-etl did not create, so it will not change its password or grants: ${fix}; or, if ${role} is only for BI reading, mark it as the loader's: COMMENT ON ROLE ${role} IS '${OWNED_ROLE_MARK} BI reader'`;
}

/** What setting up the BI role did, for the log. */
export interface BiReaderSetup {
  readonly role: string;
  readonly created: boolean;
  readonly passwordSet: boolean;
  /** CONNECT on the database was taken from PUBLIC now (it had it before). */
  readonly publicConnectRevoked: boolean;
}

/**
 * Sets up this warehouse's BI role (every command that migrates calls it, after migrating): creates
 * it `NOLOGIN` if it does not exist, grants it CONNECT on this database (only this one), takes
 * CONNECT on this database from PUBLIC so another warehouse's BI role cannot connect here, takes
 * the legacy server-wide `bi_reader`'s access to this warehouse away, and, when
 * {@link BI_READER_PASSWORD_ENV} is set, gives the role that password (as a SCRAM verifier) and
 * LOGIN. SELECT on the marts is granted by dbt. The password is never logged nor put in an error.
 * A role that exists but is not the loader's ({@link biReaderRoleRefusal}) is refused (UsageError,
 * exit 2) before anything changes.
 */
export async function setUpBiReaderRole(
  db: Kysely<Database>,
  options: { role?: string; log: Logger; env?: NodeJS.ProcessEnv },
): Promise<BiReaderSetup> {
  // Two commands starting at once would update the same catalog rows ("tuple concurrently updated").
  return db.connection().execute(async (conn) => {
    await sql`SELECT pg_advisory_lock(${SETUP_LOCK_KEY})`.execute(conn);
    try {
      return await setUp(conn, options);
    } finally {
      await sql`SELECT pg_advisory_unlock(${SETUP_LOCK_KEY})`.execute(conn);
    }
  });
}

/** Advisory lock (per database) serialising the BI role's set-up between commands started together. */
const SETUP_LOCK_KEY = 7_420_014;

async function setUp(
  db: Kysely<Database>,
  options: { role?: string; log: Logger; env?: NodeJS.ProcessEnv },
): Promise<BiReaderSetup> {
  const env = options.env ?? process.env;
  const database = (await sql<{ name: string }>`SELECT current_database() AS name`.execute(db)).rows[0]!.name;
  const role = biReaderRoleFor(database, options.role);
  const exists = async () =>
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_roles WHERE rolname = ${role}`.execute(db))
      .rows[0]!.n > 0;
  let created = false;
  if (!(await exists())) {
    try {
      // One transaction: another warehouse's set-up never sees the role without its mark.
      await db.transaction().execute(async (trx) => {
        await sql`CREATE ROLE ${sql.id(role)} NOLOGIN`.execute(trx);
        await sql`COMMENT ON ROLE ${sql.id(role)} IS ${sql.lit(
          `${OWNED_ROLE_MARK} BI reader of database ${database}: SELECT on its marts (granted by dbt), CONNECT on it only; password from ${BI_READER_PASSWORD_ENV}`,
        )}`.execute(trx);
      });
      created = true;
    } catch (error) {
      // Another warehouse's migration may have created it meanwhile; anything else is a rights problem.
      if (!(await exists())) {
        throw new UsageError(
          `cannot create the BI role ${role}: the warehouse user needs CREATEROLE, or a DBA runs CREATE ROLE ${role} NOLOGIN; COMMENT ON ROLE ${role} IS '${OWNED_ROLE_MARK} BI reader': ${describeError(error)}`,
        );
      }
    }
  }
  const refusal = await biReaderRoleRefusal(db, role, options.role !== undefined);
  if (refusal !== undefined) throw new UsageError(refusal);
  const publicHadConnect = await publicCanConnect(db);
  try {
    await sql`GRANT CONNECT ON DATABASE ${sql.id(database)} TO ${sql.id(role)}`.execute(db);
    await sql`REVOKE CONNECT ON DATABASE ${sql.id(database)} FROM PUBLIC`.execute(db);
  } catch (error) {
    throw new UsageError(
      `cannot grant CONNECT on database ${database} to the BI role ${role} (the warehouse user must own the database): ${describeError(error)}`,
    );
  }
  const publicConnectRevoked = publicHadConnect && !(await publicCanConnect(db));
  if (role !== LEGACY_BI_READER_ROLE) await revokeLegacyRole(db, database);
  const passwordSet = await applyBiReaderPassword(db, role, env);
  const setup = { role, created, passwordSet, publicConnectRevoked };
  if (created || passwordSet || publicConnectRevoked) {
    options.log.info(
      setup,
      `BI role ${role}${created ? " created" : ""}${passwordSet ? `, password set from ${BI_READER_PASSWORD_ENV}, LOGIN` : ""}${
        publicConnectRevoked
          ? `; CONNECT on database ${database} taken from PUBLIC (grant it to any other role that must connect)`
          : ""
      }`,
    );
  }
  return setup;
}

/** True when PUBLIC may connect to the current database (the default: an ACL not set yet counts). */
async function publicCanConnect(db: Kysely<Database>): Promise<boolean> {
  const result = await sql<{ yes: boolean }>`
    SELECT datacl IS NULL OR EXISTS (
      SELECT 1 FROM aclexplode(datacl) a WHERE a.grantee = 0 AND a.privilege_type = 'CONNECT') AS yes
    FROM pg_database WHERE datname = current_database()`.execute(db);
  return result.rows[0]?.yes === true;
}

/** Takes the legacy server-wide `bi_reader`'s CONNECT and its marts access in this database away, if it exists. */
async function revokeLegacyRole(db: Kysely<Database>, database: string): Promise<void> {
  const legacy = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_roles WHERE rolname = ${LEGACY_BI_READER_ROLE}`.execute(db);
  if (legacy.rows[0]!.n === 0) return;
  // Only what the legacy role still holds is revoked, read from the catalogs first: a REVOKE on the
  // marts queues behind a publication's exclusive locks, and every command starts here.
  const held = await sql<{ connect: boolean; marts: boolean }>`
    SELECT has_database_privilege(${LEGACY_BI_READER_ROLE}, current_database(), 'CONNECT') AS connect,
           EXISTS (
             SELECT 1 FROM pg_namespace n WHERE n.nspname = ${MARTS_SCHEMA}
               AND (has_schema_privilege(${LEGACY_BI_READER_ROLE}, n.oid, 'USAGE')
                    OR EXISTS (SELECT 1 FROM pg_class c, aclexplode(c.relacl) a
                               WHERE c.relnamespace = n.oid
                                 AND a.grantee = (SELECT oid FROM pg_roles WHERE rolname = ${LEGACY_BI_READER_ROLE})))
           ) AS marts`.execute(db);
  const { connect, marts } = held.rows[0]!;
  if (connect) {
    await sql`REVOKE CONNECT ON DATABASE ${sql.id(database)} FROM ${sql.id(LEGACY_BI_READER_ROLE)}`.execute(
      db,
    );
  }
  if (!marts) return;
  await sql`REVOKE ALL ON ALL TABLES IN SCHEMA ${sql.id(MARTS_SCHEMA)} FROM ${sql.id(LEGACY_BI_READER_ROLE)}`.execute(
    db,
  );
  await sql`REVOKE USAGE ON SCHEMA ${sql.id(MARTS_SCHEMA)} FROM ${sql.id(LEGACY_BI_READER_ROLE)}`.execute(db);
}

/**
 * When {@link BI_READER_PASSWORD_ENV} is set, gives `role` that password and LOGIN; true when it did.
 * The password is sent as a SCRAM verifier, never logged nor put in an error.
 */
async function applyBiReaderPassword(
  db: Kysely<Database>,
  role: string,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const password = env[BI_READER_PASSWORD_ENV];
  if (password === undefined || password === "") return false;
  const verifier = scramSha256Verifier(password);
  try {
    await sql`ALTER ROLE ${sql.id(role)} WITH LOGIN PASSWORD ${sql.lit(verifier)}`.execute(db);
  } catch (error) {
    throw new UsageError(
      `${BI_READER_PASSWORD_ENV} is set but the warehouse user cannot set role ${role}'s password (it needs CREATEROLE, or a DBA sets it): ${describeError(error)}`,
    );
  }
  return true;
}

/** Whether the BI role exists (the loader creates it; a DBA may have to). */
async function biReaderExists(db: Kysely<Database>, role: string): Promise<boolean> {
  const found = await sql<{ ok: boolean }>`
    SELECT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = ${role}) AS ok`.execute(db);
  return found.rows[0]?.ok === true;
}

/**
 * Lets the BI role `role` (the warehouse's, see {@link biReaderRoleFor}) read what the project publishes outside dbt's own grants: USAGE on `schema`
 * (the published marts schema, created by the first publication) and SELECT on `relations` of it
 * (tables or views the loader creates there). Idempotent; nothing when the role does not exist.
 * dbt grants the marts themselves (`+grants`), and those grants move with a mart when it is published.
 */
export async function grantBiReaderRead(
  db: Kysely<Database>,
  role: string,
  schema: string,
  relations: readonly string[] = [],
): Promise<void> {
  if (!(await biReaderExists(db, role))) return;
  await sql`GRANT USAGE ON SCHEMA ${sql.id(schema)} TO ${sql.id(role)}`.execute(db);
  for (const relation of relations) {
    await sql`GRANT SELECT ON ${sql.id(schema, relation)} TO ${sql.id(role)}`.execute(db);
  }
}
