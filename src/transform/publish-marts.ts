/**
 * Write–audit–publish of the marts. dbt builds and tests them in {@link MARTS_BUILD_SCHEMA}, where BI
 * cannot see them (the BI role has no USAGE there); only when dbt passed (every model built, every
 * error-level test passed) does {@link publishMarts} move them into {@link PUBLISHED_MARTS_SCHEMA},
 * in one transaction, with the record of the publication. A failed, interrupted or killed build
 * publishes nothing: BI keeps the marts it had, and the next build starts again from them
 * ({@link discardMartsBuild}).
 *
 * An incremental mart a build replaces is not dropped but kept in {@link KEPT_MARTS_SCHEMA}: the
 * next build starts its incremental model from it (moved into the build schema, no copy) and
 * catches up, as after a missed night (dbt hook `copy_published_incremental_marts`).
 */
import { type Kysely, sql, type Transaction } from "kysely";
import { DEFAULT_PUBLISH_SNAPSHOT_WAIT_SECONDS } from "../config/config-file-schema.js";
import { PublishError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { fixedDelay, type RetryLoopPolicy, retryLoop } from "../core/retry.js";
import { biReaderRoleFor, grantBiReaderRead } from "../warehouse/admin/bi-reader-role.js";
import type { Database } from "../warehouse/connection/database.js";
import { addForeignKeys, dropForeignKeysOf, type MartForeignKey } from "./mart-foreign-keys.js";
import { waitForOlderSnapshots } from "./older-snapshots.js";

/** The schema BI reads (dbt's `<target schema>_marts`, macro published_marts_schema). */
export const PUBLISHED_MARTS_SCHEMA = "analytics_marts";

/** Where `transform` builds and tests the marts before publishing them (macro marts_build_schema). */
export const MARTS_BUILD_SCHEMA = "analytics_marts__build";

/**
 * Where a publication keeps the published table of an incremental mart it replaces: the next
 * build's starting point. BI has no USAGE there. Each table's comment says which publication kept
 * it and which relation replaced it ({@link keptMartMarker}).
 */
export const KEPT_MARTS_SCHEMA = "analytics_marts__previous";

/**
 * The comment a kept mart carries: the publication that kept it and the OID of the table that
 * replaced it. The dbt hook moves a kept mart into the build schema only when the marker names
 * the latest publication and the published table is still that one (not rebuilt since, by a
 * `--full-refresh` or a dbt run by hand in place).
 */
export function keptMartMarker(publicationId: number, successorOid: number): string {
  return `telecom-etl kept: publication ${publicationId}, replaced by relation ${successorOid}`;
}

/** The view of the published schema telling BI which build each mart it sees comes from. */
export const PUBLICATION_VIEW = "published_marts";

/** One publication of the marts, as `etl.published_marts` records it. */
export interface Publication {
  readonly id: number;
  readonly publishedAt: Date;
  /** The run that built them (`nightly`, `demo`); null for a `transform` started alone. */
  readonly runId: number | null;
  readonly dbtInvocationId: string | null;
  /** The marts this publication moved (a `--select` build publishes only what it built). */
  readonly marts: readonly string[];
}

/** How long one attempt of the publishing transaction waits for a lock on a published mart. */
const PUBLISH_LOCK_TIMEOUT = "10s";
/** Attempts of the publishing transaction when a (BI) query keeps a published mart locked. */
const PUBLISH_ATTEMPTS = 6;

/**
 * Retries of the publishing transaction: only its lock timeout (55P03 lock_not_available: a long
 * query on a published mart) is tried again, after a 5 s pause, {@link PUBLISH_ATTEMPTS} times in all.
 */
const PUBLISH_RETRY: RetryLoopPolicy = {
  maxAttempts: PUBLISH_ATTEMPTS,
  delayMs: fixedDelay(5_000),
  retryable: (error) => (error as { code?: string } | null)?.code === "55P03",
};

/** Drops what an earlier build left in the build schema (it failed, was interrupted or killed). */
export async function discardMartsBuild(db: Kysely<Database>): Promise<void> {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(MARTS_BUILD_SCHEMA)} CASCADE`.execute(db);
}

/** The latest publication (what BI sees, for the marts it published), or undefined before the first. */
export async function latestPublication(db: Kysely<Database>): Promise<Publication | undefined> {
  const row = await db
    .selectFrom("etl.published_marts")
    .selectAll()
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row && toPublication(row);
}

/** "published 2026-09-15T02:21:07.000Z (run 7, dbt invocation …)", or "none yet". */
export function describePublication(publication: Publication | undefined): string {
  if (!publication) return "no marts published yet";
  const run = publication.runId === null ? "transform" : `run ${publication.runId}`;
  return `published ${publication.publishedAt.toISOString()} (${run}, dbt invocation ${publication.dbtInvocationId ?? "unknown"})`;
}

const RELATION_KINDS: Readonly<Record<string, string>> = {
  r: "TABLE",
  p: "TABLE",
  v: "VIEW",
  m: "MATERIALIZED VIEW",
};

async function relationsIn(db: Kysely<Database>, schema: string): Promise<Map<string, string>> {
  const found = await sql<{ name: string; kind: string }>`
    SELECT c.relname AS name, c.relkind AS kind FROM pg_catalog.pg_class c
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
    ORDER BY c.relname`.execute(db);
  return new Map(found.rows.map((r) => [r.name, RELATION_KINDS[r.kind]!]));
}

/** Options of {@link publishMarts}. */
export interface PublishOptions {
  readonly runId?: number | undefined;
  readonly dbtInvocationId?: string | undefined;
  /** Runs inside the transaction just before its commit (the transform lock's fence); throwing aborts it. */
  readonly beforeCommit?: (trx: Transaction<Database>) => Promise<void>;
  readonly sleep?: (ms: number) => Promise<void>;
  /** The warehouse's BI role, granted the publication view (default: `<database>_bi_reader` of the connection's database). */
  readonly biReaderRole?: string | undefined;
  /** Longest wait for sessions holding a snapshot from before the build ({@link waitForOlderSnapshots}). */
  readonly snapshotWaitMs?: number | undefined;
  readonly log?: Logger | undefined;
  /**
   * The built marts whose replaced published table is kept in {@link KEPT_MARTS_SCHEMA} for the
   * next build (incremental marts built incrementally); the others are dropped. Default: none.
   */
  readonly keep?: ReadonlySet<string> | undefined;
  /**
   * When the build started reading the landing tables, for a build of every mart (no `--select`);
   * the next transform looks for older landing changes made since (`old-landing-changes.ts`).
   */
  readonly landingSeenBefore?: Date | undefined;
  /**
   * The foreign keys the marts declare (`mart-foreign-keys.ts`), created in the published schema at
   * the end of the publication where both marts are there and the key is not. Default: none.
   */
  readonly foreignKeys?: readonly MartForeignKey[] | undefined;
}

/**
 * Moves every relation of the build schema into the published schema, replacing the published one
 * of the same name, and records the publication, in ONE transaction: BI sees all of the old marts
 * or all of the new ones. The grants dbt gave each mart and the comments it persisted belong to the
 * relation and move with it; a view keeps pointing at the relations it was built on (Postgres binds
 * views to relations, not names). Dropping a replaced mart drops what depends on it (CASCADE, as
 * dbt's own rebuild does). A replaced table named in `keep` that nothing depends on is moved into
 * {@link KEPT_MARTS_SCHEMA} instead (replacing the one kept there); any other kept table of a built
 * mart is dropped (it is no longer the published one's predecessor). The foreign keys from or to a
 * replaced table are dropped first, and every declared one missing is created at the end, between
 * published marts only (`mart-foreign-keys.ts`): a kept table carries none. Returns undefined when the
 * build schema holds nothing (a selection of staging models only). First waits, bounded, until no
 * session holds a snapshot from before the build (it would find the new marts and none of their
 * rows; see `older-snapshots.ts`). Retries while a query keeps a published mart locked; throws
 * {@link PublishError} when a snapshot outlives the wait or it never gets the lock.
 */
export async function publishMarts(
  db: Kysely<Database>,
  options: PublishOptions = {},
): Promise<Publication | undefined> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  await waitForOlderSnapshots(db, {
    waitMs: options.snapshotWaitMs ?? DEFAULT_PUBLISH_SNAPSHOT_WAIT_SECONDS * 1000,
    log: options.log,
    sleep,
  });
  return retryLoop(() => db.transaction().execute((trx) => publishOnce(trx, options)), PUBLISH_RETRY, {
    sleep,
    giveUp: ({ error }) =>
      new PublishError(
        `marts built and tested but not published: queries kept a published mart locked through ${PUBLISH_ATTEMPTS} attempts of ${PUBLISH_LOCK_TIMEOUT}; BI still sees the previous marts; run \`telecom-etl transform\` again`,
        {},
        { cause: error },
      ),
  });
}

async function publishOnce(
  trx: Transaction<Database>,
  options: PublishOptions,
): Promise<Publication | undefined> {
  await sql`SELECT set_config('lock_timeout', ${PUBLISH_LOCK_TIMEOUT}, true)`.execute(trx);
  const built = await relationsIn(trx, MARTS_BUILD_SCHEMA);
  if (built.size === 0) return undefined;
  const published = PUBLISHED_MARTS_SCHEMA;
  await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(published)}`.execute(trx);
  const row = await trx
    .insertInto("etl.published_marts")
    .values({
      run_id: options.runId ?? null,
      dbt_invocation_id: options.dbtInvocationId ?? null,
      marts: [...built.keys()],
      landing_seen_before: options.landingSeenBefore ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const current = await relationsIn(trx, published);
  const kept = await relationsIn(trx, KEPT_MARTS_SCHEMA);
  for (const [name, kind] of built) {
    const stale = kept.get(name);
    if (stale) await sql`DROP ${sql.raw(stale)} ${sql.id(KEPT_MARTS_SCHEMA, name)} CASCADE`.execute(trx);
    const old = current.get(name);
    if (old === "TABLE") await dropForeignKeysOf(trx, published, name);
    const keep = old === "TABLE" && options.keep?.has(name) && !(await hasDependents(trx, published, name));
    if (keep) {
      await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(KEPT_MARTS_SCHEMA)}`.execute(trx);
      await moveTable(trx, published, name, KEPT_MARTS_SCHEMA);
    } else if (old) {
      await sql`DROP ${sql.raw(old)} ${sql.id(published, name)} CASCADE`.execute(trx);
    }
    if (kind === "TABLE") await moveTable(trx, MARTS_BUILD_SCHEMA, name, published);
    else
      await sql`ALTER ${sql.raw(kind)} ${sql.id(MARTS_BUILD_SCHEMA, name)} SET SCHEMA ${sql.id(published)}`.execute(
        trx,
      );
    if (keep) {
      const successor = await oidOf(trx, published, name);
      await sql`COMMENT ON TABLE ${sql.id(KEPT_MARTS_SCHEMA, name)} IS ${sql.lit(
        keptMartMarker(Number(row.id), successor),
      )}`.execute(trx);
    }
  }
  await sql`DROP SCHEMA ${sql.id(MARTS_BUILD_SCHEMA)}`.execute(trx);
  await addForeignKeys(trx, published, options.foreignKeys ?? [], options.log);
  await createPublicationView(trx);
  const role = options.biReaderRole ?? biReaderRoleFor(await currentDatabase(trx));
  await grantBiReaderRead(trx, role, published, [PUBLICATION_VIEW]);
  await options.beforeCommit?.(trx);
  return toPublication(row);
}

/**
 * Moves table `from.name` into schema `to` with its partitions (a fact partitioned by month, dbt
 * macros month_partitions): `ALTER TABLE … SET SCHEMA` moves a partitioned table alone, and its
 * partitions left in the build schema would block (or, with CASCADE, lose) them when it is dropped.
 */
async function moveTable(trx: Transaction<Database>, from: string, name: string, to: string): Promise<void> {
  const partitions = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = format('%I.%I', ${from}::text, ${name}::text)::regclass ORDER BY 1`.execute(trx);
  for (const partition of partitions.rows)
    await sql`ALTER TABLE ${sql.id(from, partition.name)} SET SCHEMA ${sql.id(to)}`.execute(trx);
  await sql`ALTER TABLE ${sql.id(from, name)} SET SCHEMA ${sql.id(to)}`.execute(trx);
}

/** Whether a view, rule or foreign key of another relation depends on `schema.name`. */
async function hasDependents(trx: Transaction<Database>, schema: string, name: string): Promise<boolean> {
  const table = sql`format('%I.%I', ${schema}::text, ${name}::text)::regclass`;
  const found = await sql<{ found: boolean }>`SELECT EXISTS (
      SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid
      WHERE d.classid = 'pg_catalog.pg_rewrite'::regclass AND d.refobjid = ${table}
        AND r.ev_class <> d.refobjid
    ) OR EXISTS (
      SELECT 1 FROM pg_catalog.pg_constraint c
      WHERE c.confrelid = ${table} AND c.conrelid <> c.confrelid
    ) AS found`.execute(trx);
  return found.rows[0]?.found === true;
}

async function oidOf(trx: Transaction<Database>, schema: string, name: string): Promise<number> {
  const found = await sql<{ oid: string }>`
    SELECT format('%I.%I', ${schema}::text, ${name}::text)::regclass::oid::int8 AS oid`.execute(trx);
  return Number(found.rows[0]!.oid);
}

/** `analytics_marts.published_marts`: per mart BI sees, the publication it comes from. */
async function createPublicationView(trx: Transaction<Database>): Promise<void> {
  const view = sql.id(PUBLISHED_MARTS_SCHEMA, PUBLICATION_VIEW);
  await sql`CREATE OR REPLACE VIEW ${view} AS
    SELECT DISTINCT ON (m.mart)
      m.mart, p.published_at, p.run_id, p.dbt_invocation_id, p.id AS publication_id
    FROM etl.published_marts AS p CROSS JOIN LATERAL unnest(p.marts) AS m (mart)
    ORDER BY m.mart, p.id DESC`.execute(trx);
  await sql`COMMENT ON VIEW ${view} IS ${sql.lit(
    "Which build each mart of this schema comes from: when it was published (published_at, UTC), the telecom-etl run that built it (run_id; null for a transform started alone) and dbt's invocation id. The marts are built and tested out of sight and published together only when every test passed; a failed build leaves these rows, and the marts, as they were.",
  )}`.execute(trx);
}

function toPublication(row: {
  id: number | string;
  published_at: Date | string;
  run_id: number | string | null;
  dbt_invocation_id: string | null;
  marts: string[];
}): Publication {
  return {
    id: Number(row.id),
    publishedAt: new Date(row.published_at),
    runId: row.run_id === null ? null : Number(row.run_id),
    dbtInvocationId: row.dbt_invocation_id,
    marts: row.marts,
  };
}

/** The name of the database a connection is on. */
async function currentDatabase(db: Transaction<Database>): Promise<string> {
  const result = await sql<{ name: string }>`SELECT current_database() AS name`.execute(db);
  return result.rows[0]!.name;
}
