import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { describeError, UsageError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Database } from "./database.js";

/** The role BI tools read the marts with (created by migration 0009, granted by dbt). */
export const BI_READER_ROLE = "bi_reader";

/** The environment variable holding bi_reader's password; unset or empty leaves the role as it is. */
export const BI_READER_PASSWORD_ENV = "TELECOM_ETL_BI_READER_PASSWORD";

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
 * When {@link BI_READER_PASSWORD_ENV} is set, gives bi_reader that password and LOGIN (every command
 * that migrates calls this after migrating). The password is never logged nor put in an error.
 */
export async function applyBiReaderPassword(
  db: Kysely<Database>,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const password = env[BI_READER_PASSWORD_ENV];
  if (password === undefined || password === "") return false;
  const verifier = scramSha256Verifier(password);
  try {
    await sql`ALTER ROLE ${sql.id(BI_READER_ROLE)} WITH LOGIN PASSWORD ${sql.lit(verifier)}`.execute(db);
  } catch (error) {
    throw new UsageError(
      `${BI_READER_PASSWORD_ENV} is set but the warehouse user cannot set role ${BI_READER_ROLE}'s password (it needs CREATEROLE, or a DBA sets it): ${describeError(error)}`,
    );
  }
  log.info(
    { role: BI_READER_ROLE },
    `role ${BI_READER_ROLE}: password set from ${BI_READER_PASSWORD_ENV}, LOGIN`,
  );
  return true;
}
