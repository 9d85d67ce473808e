/**
 * One write–audit–publish build of the marts: `dbt build` into the build schema, then, only when dbt
 * passed, the publication of what it built (see `publish-marts.ts`). The caller holds the transform
 * lock (`src/warehouse/coordination/transform-lock.ts`) and reports the outcome.
 */
import type { Transaction } from "kysely";
import type { Logger } from "../core/log.js";
import { biReaderRoleFor, databaseOfUrl } from "../warehouse/admin/bi-reader-role.js";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";
import type { Database } from "../warehouse/connection/database.js";
import type { DbtNodeProgress } from "./dbt-events.js";
import { incrementalMartsIn } from "./incremental-marts.js";
import { foreignKeysIn } from "./mart-foreign-keys.js";
import { discardMartsBuild, MARTS_BUILD_SCHEMA, type Publication, publishMarts } from "./publish-marts.js";
import { type DbtResult, type DbtRunOptions, runDbt } from "./run-dbt.js";

/** How a build ended: dbt's result and the publication it made (undefined: nothing was published). */
export interface MartsBuild {
  readonly dbt: DbtResult;
  readonly publication: Publication | undefined;
}

/**
 * A build that failed only because Postgres broke a deadlock (SQLSTATE 40P01, "deadlock detected"):
 * transient by nature (Postgres' advice is to retry the transaction), unlike a failing model or test.
 * Seen between a model's transaction and autovacuum analyzing a table dbt had just written.
 */
export function failedOnlyByDeadlock(result: DbtResult): boolean {
  return (
    !result.ok &&
    result.generalError === undefined &&
    result.failures.length > 0 &&
    result.failures.every((f) => f.status !== "warn" && /deadlock detected/i.test(f.detail ?? ""))
  );
}

/**
 * Runs dbt in a marts build's folder (the warehouse's, unless `workDir`) as the build runs it: the
 * project parsed with the marts in the build schema. Every dbt invocation there goes through here
 * (the build, `dbt source freshness` after it): dbt keeps the parsed project in the folder
 * (`target/partial_parse.msgpack`) and parses it whole again (seconds of every nightly) whenever
 * a variable the project read while parsing differs, and DBT_MARTS_BUILD_SCHEMA places every mart.
 */
export function runDbtAsBuild(options: Omit<DbtRunOptions, "martsBuildSchema">): Promise<DbtResult> {
  return runDbt({ ...options, martsBuildSchema: MARTS_BUILD_SCHEMA });
}

/** Options of {@link buildAndPublishMarts}. */
export interface MartsBuildOptions {
  /** dbt's arguments, `build` first (`--select`, `--full-refresh`, ...). */
  readonly args: readonly string[];
  readonly log: Logger;
  readonly signal?: AbortSignal | undefined;
  readonly workDir?: string | undefined;
  /** The run the build belongs to, recorded with the publication. */
  readonly runId?: number | undefined;
  /** Runs inside the publishing transaction before its commit (the transform lock's fence). */
  readonly beforeCommit?: (trx: Transaction<Database>) => Promise<void>;
  /** The warehouse's BI role as configured (`bi_reader_role`); default `<database>_bi_reader`. */
  readonly biReaderRole?: string | undefined;
  /** Longest wait of the publication for snapshots older than the build (config `publish_snapshot_wait_seconds`). */
  readonly snapshotWaitMs?: number | undefined;
  /** Called as each dbt node finishes ("N of M"), while dbt runs. */
  readonly onNode?: ((progress: DbtNodeProgress) => void) | undefined;
  /** When a build of every mart started reading the landing tables, recorded with its publication. */
  readonly landingSeenBefore?: Date | undefined;
}

/**
 * Discards what an earlier build left in the build schema, builds and tests the marts there, and
 * publishes them when dbt passed and was not interrupted, keeping the incremental marts it replaces
 * as the next build's starting point (unless it was a `--full-refresh`). A failure publishes nothing: BI keeps the
 * marts it had. A build that failed only by a deadlock ({@link failedOnlyByDeadlock}) is made once
 * more, from a discarded build schema as after any failed build. Throws PublishError when the
 * publication cannot be committed.
 */
export async function buildAndPublishMarts(
  warehouse: Warehouse,
  options: MartsBuildOptions,
): Promise<MartsBuild> {
  const build = async (): Promise<DbtResult> => {
    await discardMartsBuild(warehouse.db);
    return runDbtAsBuild({
      databaseUrl: warehouse.url,
      log: options.log,
      args: options.args,
      signal: options.signal,
      workDir: options.workDir,
      ...(options.biReaderRole === undefined ? {} : { biReaderRole: options.biReaderRole }),
      ...(options.onNode === undefined ? {} : { onNode: options.onNode }),
    });
  };
  let dbt = await build();
  if (failedOnlyByDeadlock(dbt) && !options.signal?.aborted) {
    options.log.warn(
      { failures: dbt.failures.map((f) => `${f.resourceType} ${f.name}`) },
      "dbt build: Postgres broke a deadlock (40P01) between two of its statements and a concurrent one " +
        "(autovacuum's analyze, another model); nothing was published, building once more",
    );
    dbt = await build();
  }
  if (!dbt.ok || options.signal?.aborted) return { dbt, publication: undefined };
  // A --full-refresh build's marts do not descend from the published ones: keep nothing for the next.
  const fullRefresh = options.args.includes("--full-refresh") || options.args.includes("-f");
  const keep = fullRefresh ? new Set<string>() : await incrementalMartsIn(dbt.targetPath, MARTS_BUILD_SCHEMA);
  const publication = await publishMarts(warehouse.db, {
    runId: options.runId,
    dbtInvocationId: dbt.invocationId,
    beforeCommit: options.beforeCommit,
    keep,
    snapshotWaitMs: options.snapshotWaitMs,
    landingSeenBefore: options.landingSeenBefore,
    foreignKeys: await foreignKeysIn(dbt.targetPath),
    log: options.log,
    biReaderRole: biReaderRoleFor(databaseOfUrl(warehouse.url), options.biReaderRole),
  });
  return { dbt, publication };
}
