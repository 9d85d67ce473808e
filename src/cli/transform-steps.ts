import type { EtlConfig } from "../config/config.js";
import { accountTimeZones } from "../core/account-time-zone.js";
import { LockHeldError, PublishError, UsageError } from "../core/errors.js";
import { EXIT, type ExitCode, worstExitCode } from "../core/exit-codes.js";
import { processStderr } from "../core/stderr-lines.js";
import { selectRunTargets } from "../pipeline/plan/select-targets.js";
import type { PipelineRequest } from "../pipeline/run/run-pipeline.js";
import { buildAndPublishMarts, type MartsBuild, runDbtAsBuild } from "../transform/build-marts.js";
import { describeNodeProblem } from "../transform/dbt-events.js";
import { barDbtProgress, type DbtProgress, logDbtProgress } from "../transform/dbt-progress.js";
import { type DbtStepRecord, dbtStepRecord } from "../transform/dbt-step-record.js";
import {
  describeOldLandingChanges,
  findOldLandingChanges,
  landingSeenBefore,
} from "../transform/old-landing-changes.js";
import { describePublication, latestPublication } from "../transform/publish-marts.js";
import { type DbtResult, describeDbtFailure, WITHOUT_UNIT_TESTS } from "../transform/run-dbt.js";
import { recordAccountTimeZones } from "../warehouse/admin/account-time-zones.js";
import { acquireTransformLock, type TransformLock } from "../warehouse/coordination/transform-lock.js";
import type { CommandContext } from "./command-context.js";

/**
 * What `transform` builds: a dbt selection (default everything), whether to rebuild incremental
 * models, whether dbt's unit tests run too, how long to wait for another transform's lock, and the
 * run the build belongs to (`nightly`, `demo`; recorded with the publication).
 */
export interface BuildOptions {
  readonly select?: string | undefined;
  readonly fullRefresh?: boolean | undefined;
  readonly unitTests?: boolean | undefined;
  readonly lockTimeoutMs?: number | undefined;
  readonly runId?: number | undefined;
}

/** Load exit codes after which the marts are rebuilt: the load ran, fully or in part. */
const LOAD_CODES_THAT_TRANSFORM: readonly ExitCode[] = [EXIT.ok, EXIT.workFailed, EXIT.quarantined];

function reportWarnings(ctx: CommandContext, step: string, result: DbtResult): void {
  if (result.warnings.length === 0) return;
  ctx.log.warn({ step, warnings: result.warnings.map(describeNodeProblem) }, `${step}: warnings`);
}

/**
 * Reports a dbt step on stdout (its counts line) or, when it failed, as one line on stderr naming the
 * failing nodes and dbt's log (then `consequence`, when given); the full output is in that log and
 * in the debug log.
 */
function reportStep(ctx: CommandContext, step: string, result: DbtResult, consequence?: string): void {
  reportWarnings(ctx, step, result);
  ctx.log[result.ok ? "info" : "error"](
    { step, ok: result.ok, summary: result.summary, failures: result.failures.map(describeNodeProblem) },
    step,
  );
  if (ctx.json) {
    const failures = result.failures.map(describeNodeProblem);
    ctx.out(JSON.stringify({ step, ok: result.ok, summary: result.summary, failures }));
  } else if (result.ok) ctx.out(`${step}: ${result.summary || "done"}`);
  if (!result.ok) {
    const line = describeDbtFailure(step, result) + (consequence ? `; ${consequence}` : "");
    processStderr.write(`telecom-etl: ${line}\n`);
  }
}

/** A dbt step's "N of M": a bar on a terminal (unless `--json`), log lines elsewhere. */
function dbtProgressFor(ctx: CommandContext, step: string): DbtProgress {
  return process.stderr.isTTY === true && !ctx.json ? barDbtProgress(step) : logDbtProgress(step, ctx.log);
}

/** Runs `work` with a dbt step's progress shown while it runs, and ended (bars gone) before anything is reported. */
async function withDbtProgress<T>(
  ctx: CommandContext,
  step: string,
  work: (onNode: DbtProgress["node"]) => Promise<T>,
): Promise<T> {
  const progress = dbtProgressFor(ctx, step);
  try {
    return await work((node) => progress.node(node));
  } finally {
    progress.end();
  }
}

/** One line on stderr (and the log) for a transform that stopped before or instead of publishing. */
function reportRefusal(ctx: CommandContext, message: string): void {
  ctx.log.error({ step: "dbt build" }, message);
  processStderr.write(`telecom-etl: ${message}\n`);
}

/**
 * Write–audit–publish (see `src/transform/publish-marts.ts`): under the transform lock, `dbt build`
 * of the selection into the build schema, then, only when every model and error-level test
 * passed, the marts it built are published in one transaction. Exit 0; 5 when a model or test
 * failed or the publication could not be committed (BI keeps the marts it had); 4 when another
 * transform holds the lock past `lockTimeoutMs`; 130 when interrupted (nothing published). A
 * selection matching nothing is a usage error.
 */
export async function buildMarts(
  ctx: CommandContext,
  options: BuildOptions = {},
  steps?: DbtStepRecord[],
): Promise<ExitCode> {
  let lock: TransformLock;
  try {
    lock = await acquireTransformLock(ctx.warehouse, {
      timeoutMs: options.lockTimeoutMs ?? 0,
      runId: options.runId,
    });
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    reportRefusal(ctx, error.message);
    return EXIT.locked;
  }
  try {
    return await buildAndPublish(ctx, options, lock, steps);
  } finally {
    await lock.release();
  }
}

async function buildAndPublish(
  ctx: CommandContext,
  options: BuildOptions,
  lock: TransformLock,
  steps?: DbtStepRecord[],
): Promise<ExitCode> {
  const startedAt = Date.now();
  // Before dbt reads them: the marts' local dates are in the zones the config sets now.
  const rezoned = await recordAccountTimeZones(ctx.warehouse.db, accountTimeZones(ctx.config.accounts));
  if (rezoned.length > 0) ctx.log.info({ accounts: rezoned }, "account time zones recorded");
  // Before reading what changed: a load committing meanwhile is then seen again by the next build.
  const seenBefore = options.select ? undefined : await landingSeenBefore(ctx.warehouse.db);
  const refreshBecause = options.fullRefresh ? undefined : await fullRefreshBecause(ctx);
  const args = ["build"];
  if (options.select) args.push("--select", options.select);
  if (options.fullRefresh || refreshBecause !== undefined) args.push("--full-refresh");
  if (!options.unitTests) args.push(...WITHOUT_UNIT_TESTS);
  let build: MartsBuild;
  try {
    build = await withDbtProgress(ctx, "dbt build", (onNode) =>
      buildAndPublishMarts(ctx.warehouse, {
        args,
        log: ctx.log,
        signal: ctx.signal,
        runId: options.runId,
        biReaderRole: ctx.config.biReaderRole,
        snapshotWaitMs: ctx.config.publishSnapshotWaitMs,
        beforeCommit: (trx) => lock.fence(trx),
        landingSeenBefore: seenBefore,
        onNode,
      }),
    );
  } catch (error) {
    if (!(error instanceof PublishError || error instanceof LockHeldError)) throw error;
    reportRefusal(ctx, error.message);
    return error instanceof PublishError ? EXIT.transformFailed : EXIT.locked;
  }
  const { dbt, publication } = build;
  if (dbt.ok && dbt.selectedNothing && options.select) {
    throw new UsageError(`dbt selected nothing for --select ${options.select}`);
  }
  reportStep(ctx, "dbt build", dbt, dbt.ok ? undefined : await keptMarts(ctx));
  const record = dbtStepRecord("dbt build", dbt, Date.now() - startedAt);
  steps?.push(refreshBecause === undefined ? record : { ...record, fullRefreshBecause: refreshBecause });
  if (ctx.signal.aborted) return EXIT.interrupted;
  if (!dbt.ok) return EXIT.transformFailed;
  if (publication) {
    ctx.log.info({ publication }, "marts published");
    const line = `marts published: ${publication.marts.length}, ${describePublication(publication)}`;
    ctx.out(ctx.json ? JSON.stringify({ step: "publish", ok: true, publication }) : line);
  }
  return EXIT.ok;
}

/**
 * Why this build must be a `--full-refresh` though not asked to be: landing rows changed, since the
 * latest full build, in days before the window an incremental build re-builds (a re-counted window
 * re-read, a backfill, a row moved out of an old day; see `old-landing-changes.ts`). Logged as one
 * info line; undefined when the incremental build sees every change.
 */
async function fullRefreshBecause(ctx: CommandContext): Promise<string | undefined> {
  const found = await findOldLandingChanges(ctx.warehouse.db);
  if (found === undefined || found.changes.length === 0) return undefined;
  const because = describeOldLandingChanges(found);
  ctx.log.info(
    {
      step: "dbt build",
      fullRefresh: true,
      settleWindowStart: found.settleWindowStart,
      changes: found.changes,
    },
    `dbt build --full-refresh: ${because}`,
  );
  return because;
}

/** "marts not published: BI keeps those published <when> (run …)": the tail of a failed build's line. */
async function keptMarts(ctx: CommandContext): Promise<string> {
  const publication = await latestPublication(ctx.warehouse.db);
  return publication
    ? `marts not published: BI keeps the marts ${describePublication(publication)}`
    : "marts not published (none were published before)";
}

/**
 * The dbt sources (`source:platform.<table>`) of the streams a load request covers, with their child
 * tables: freshness is checked only there, so a stream turned off (or left out by `--streams`) is
 * never reported stale. Sources without a freshness rule in dbt are skipped by dbt itself.
 */
export function loadedSources(
  config: EtlConfig,
  request: Pick<PipelineRequest, "accounts" | "streams">,
): string[] {
  const tables = new Set<string>();
  for (const target of selectRunTargets(config, request.accounts, request.streams)) {
    for (const stream of target.streams) {
      for (const table of [stream.table, ...(stream.children ?? []).map((child) => child.table)])
        tables.add(table.name.split(".").at(-1) ?? table.name);
    }
  }
  return [...tables].sort().map((table) => `source:platform.${table}`);
}

/**
 * `dbt source freshness` of the given sources: exit 0 (warnings are logged), or 6 when one is past
 * its error limit. No sources, nothing checked.
 */
export async function checkSourceFreshness(
  ctx: CommandContext,
  sources: readonly string[],
  steps?: DbtStepRecord[],
): Promise<ExitCode> {
  if (sources.length === 0) return EXIT.ok;
  const startedAt = Date.now();
  // In the build's folder, parsed as the build parsed the project: no second parse of it.
  const result = await withDbtProgress(ctx, "dbt source freshness", (onNode) =>
    runDbtAsBuild({
      databaseUrl: ctx.warehouse.url,
      log: ctx.log,
      args: ["source", "freshness", "--select", ...sources],
      signal: ctx.signal,
      biReaderRole: ctx.config.biReaderRole,
      onNode,
    }),
  );
  reportStep(ctx, "dbt source freshness", result);
  steps?.push(dbtStepRecord("dbt source freshness", result, Date.now() - startedAt));
  if (ctx.signal.aborted) return EXIT.interrupted;
  if (result.ok) return EXIT.ok;
  // A stale source fails as a node; anything else (dbt could not run) is the build's kind of failure.
  return result.failures.length > 0 && result.failures.every((f) => f.resourceType === "source")
    ? EXIT.sourcesStale
    : EXIT.transformFailed;
}

/**
 * What `nightly` (and `demo`) do after the load: rebuild and publish the marts (naming the load's
 * run; waiting `lockTimeoutMs` for another transform) and check the freshness of the
 * loaded streams' `sources` (see {@link loadedSources}) when
 * the load ran, fully or in part (exit 0, 1 or 3); nothing when it did not (usage, lock,
 * interruption: another run or the operator has the next move). Returns the worst of the codes.
 */
export async function transformAfterLoad(
  ctx: CommandContext,
  load: { readonly exitCode: ExitCode; readonly runId: number },
  sources: readonly string[],
  options: { readonly lockTimeoutMs?: number | undefined } = {},
  steps?: DbtStepRecord[],
): Promise<ExitCode> {
  const loadCode = load.exitCode;
  if (!LOAD_CODES_THAT_TRANSFORM.includes(loadCode) || ctx.signal.aborted) {
    ctx.log.warn({ loadCode }, "load did not run; marts not rebuilt, freshness not checked");
    return loadCode;
  }
  const build = await buildMarts(ctx, { runId: load.runId, lockTimeoutMs: options.lockTimeoutMs }, steps);
  if (build === EXIT.interrupted) return worstExitCode([loadCode, build]);
  const freshness = await checkSourceFreshness(ctx, sources, steps);
  return worstExitCode([loadCode, build, freshness]);
}
