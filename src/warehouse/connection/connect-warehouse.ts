import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { UsageError } from "../../core/errors.js";
import type { Database } from "./database.js";

/** An open warehouse: the Kysely handle for queries and the pg pool for COPY and advisory locks. */
export interface Warehouse {
  readonly db: Kysely<Database>;
  readonly pool: pg.Pool;
  /** Where it is, for messages: host, port and database, never the password. */
  readonly where: string;
  /** The full connection URL, password included: for child processes (dbt) only, never for logs. */
  readonly url: string;
  close(): Promise<void>;
}

/** Idle time before the first TCP keepalive probe of a warehouse connection (then the system's probe interval and count apply). */
export const KEEPALIVE_INITIAL_DELAY_MS = 10_000;

const PG_INT8 = 20;
const PG_DATE = 1082;

/** Type parsers of this project: `date` stays a `YYYY-MM-DD` string (no time zone shift), int8 becomes a number. */
const typeParsers = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === PG_DATE) return (value: string) => value;
    if (oid === PG_INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** `host:port/database` of a connection URL, for messages that must not leak the password. */
export function describeDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}${parsed.pathname || "/"}`;
}

/**
 * Opens a pool on `url` and checks it answers. A malformed URL or an unreachable server is a
 * UsageError naming host and port (never the password), so the CLI exits 2 before doing anything.
 */
export async function connectWarehouse(
  given: string,
  options: { max?: number; password?: string; connectionTimeoutMs?: number } = {},
): Promise<Warehouse> {
  let where: string;
  let url = given;
  try {
    const parsed = new URL(given);
    if (!["postgres:", "postgresql:"].includes(parsed.protocol)) throw new Error("protocol");
    where = describeDatabaseUrl(given);
    if (options.password !== undefined) {
      parsed.password = encodeURIComponent(options.password);
      url = parsed.toString();
    }
  } catch {
    throw new UsageError(
      "DATABASE_URL is not a valid PostgreSQL URL; expected postgres://USER:PASSWORD@HOST:PORT/DATABASE",
    );
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
    // TCP keepalive: a connection whose peer vanished (a dead NAT entry, a crashed host) fails once
    // the system's probes go unanswered, instead of waiting on a read forever.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
    types: typeParsers,
    application_name: "telecom-etl",
  });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`cannot connect to the warehouse at ${where}: ${reason}; check DATABASE_URL`);
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closing: Promise<void> | undefined;
  return { db, pool, where, url, close: () => (closing ??= db.destroy()) };
}
