import type { EtlConfig } from "../config.js";
import { UsageError } from "../errors.js";
import { EXIT, type ExitCode, worstExitCode } from "../exit-codes.js";
import type { PipelineRequest } from "../pipeline/run-pipeline.js";
import { selectRunTargets } from "../pipeline/select-targets.js";
import { describeNodeProblem } from "../transform/dbt-events.js";
import { type DbtResult, describeDbtFailure, runDbt, WITHOUT_UNIT_TESTS } from "../transform/run-dbt.js";
import type { CommandContext } from "./command-context.js";

/** What `transform` builds: a dbt selection (default everything), whether to rebuild incremental models, and whether dbt's unit tests run too. */
export interface BuildOptions {
  readonly select?: string;
  readonly fullRefresh?: boolean;
  readonly unitTests?: boolean;
}

/** Load exit codes after which the marts are rebuilt: the load ran, fully or in part. */
const LOAD_CODES_THAT_TRANSFORM: readonly ExitCode[] = [EXIT.ok, EXIT.workFailed, EXIT.quarantined];

function reportWarnings(ctx: CommandContext, step: string, result: DbtResult): void {
  if (result.warnings.length === 0) return;
  ctx.log.warn({ step, warnings: result.warnings.map(describeNodeProblem) }, `${step}: warnings`);
}

/**
 * Reports a dbt step on stdout (its counts line) or, when it failed, as one line on stderr naming the
 * failing nodes and dbt's log; the full output is in that log and in the debug log.
 */
function reportStep(ctx: CommandContext, step: string, result: DbtResult): void {
  reportWarnings(ctx, step, result);
  ctx.log[result.ok ? "info" : "error"](
    { step, ok: result.ok, summary: result.summary, failures: result.failures.map(describeNodeProblem) },
    step,
  );
  if (ctx.json) {
    const failures = result.failures.map(describeNodeProblem);
    ctx.out(JSON.stringify({ step, ok: result.ok, summary: result.summary, failures }));
  } else if (result.ok) ctx.out(`${step}: ${result.summary || "done"}`);
  if (!result.ok) process.stderr.write(`telecom-etl: ${describeDbtFailure(step, result)}\n`);
}

/** `dbt build` of the selection: exit 0, or 5 when a model or test failed; a selection matching nothing is a usage error. */
export async function buildMarts(ctx: CommandContext, options: BuildOptions = {}): Promise<ExitCode> {
  const args = ["build"];
  if (options.select) args.push("--select", options.select);
  if (options.fullRefresh) args.push("--full-refresh");
  if (!options.unitTests) args.push(...WITHOUT_UNIT_TESTS);
  const result = await runDbt({
    databaseUrl: ctx.warehouse.url,
    log: ctx.log,
    args,
    signal: ctx.signal,
    biReaderRole: ctx.config.biReaderRole,
  });
  if (result.ok && result.selectedNothing && options.select) {
    throw new UsageError(`dbt selected nothing for --select ${options.select}`);
  }
  reportStep(ctx, "dbt build", result);
  if (ctx.signal.aborted) return EXIT.interrupted;
  return result.ok ? EXIT.ok : EXIT.transformFailed;
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
): Promise<ExitCode> {
  if (sources.length === 0) return EXIT.ok;
  const result = await runDbt({
    databaseUrl: ctx.warehouse.url,
    log: ctx.log,
    args: ["source", "freshness", "--select", ...sources],
    signal: ctx.signal,
    biReaderRole: ctx.config.biReaderRole,
  });
  reportStep(ctx, "dbt source freshness", result);
  if (ctx.signal.aborted) return EXIT.interrupted;
  if (result.ok) return EXIT.ok;
  // A stale source fails as a node; anything else (dbt could not run) is the build's kind of failure.
  return result.failures.length > 0 && result.failures.every((f) => f.resourceType === "source")
    ? EXIT.sourcesStale
    : EXIT.transformFailed;
}

/**
 * What `nightly` (and `demo`) do after the load: rebuild the marts and check the freshness of the
 * loaded streams' `sources` (see {@link loadedSources}) when
 * the load ran, fully or in part (exit 0, 1 or 3); nothing when it did not (usage, lock,
 * interruption: another run or the operator has the next move). Returns the worst of the codes.
 */
export async function transformAfterLoad(
  ctx: CommandContext,
  loadCode: ExitCode,
  sources: readonly string[],
): Promise<ExitCode> {
  if (!LOAD_CODES_THAT_TRANSFORM.includes(loadCode) || ctx.signal.aborted) {
    ctx.log.warn({ loadCode }, "load did not run; marts not rebuilt, freshness not checked");
    return loadCode;
  }
  const build = await buildMarts(ctx);
  if (build === EXIT.interrupted) return worstExitCode([loadCode, build]);
  const freshness = await checkSourceFreshness(ctx, sources);
  return worstExitCode([loadCode, build, freshness]);
}
