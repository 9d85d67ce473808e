import type { Command } from "commander";
import { EXIT } from "../core/exit-codes.js";
import { requireKnownAccounts } from "../pipeline/plan/select-targets.js";
import { replayRejects } from "../pipeline/run/replay-rejects.js";
import { getStream } from "../streams/registry.js";
import {
  accountsWithRejects,
  impliedOfReject,
  listRejects,
  type RejectRecord,
} from "../warehouse/state/rejects.js";
import { type CommandContext, type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { parseLockTimeout, parsePositiveInteger } from "./parse-flags.js";

/** One reject as `rejects list` prints it: id, where it came from, the first issues, the raw row (shortened). */
export function formatReject(reject: RejectRecord): string {
  const issues = Array.isArray(reject.issues)
    ? (reject.issues as { path?: string; message?: string }[])
        .slice(0, 3)
        .map((issue) => `${issue.path || "(row)"}: ${issue.message ?? "?"}`)
        .join("; ")
    : JSON.stringify(reject.issues);
  // The stored text, not the parsed row: a ledger amount's digits as the platform wrote them.
  const raw = reject.rawText;
  const state = reject.replayedAt ? `replayed ${reject.replayedAt.toISOString()}` : "pending";
  const implied = Object.entries(impliedOfReject(reject))
    .map(([name, value]) => ` ${name}=${value}`)
    .join("");
  return `#${reject.id} ${reject.account}/${reject.stream}${implied} ${reject.slice} run ${reject.runId ?? "-"} ${state}\n    ${issues}\n    ${raw.length > 300 ? `${raw.slice(0, 300)}…` : raw}`;
}

/** `--account NAME` must be configured or have rejects: anything else is a typo, a UsageError naming the known ones. */
async function requireKnownAccount(ctx: CommandContext, account: string | undefined): Promise<void> {
  if (account === undefined) return;
  const configured = ctx.config.accounts.map((a) => a.name);
  const known = [...new Set([...configured, ...(await accountsWithRejects(ctx.warehouse.db))])].sort();
  requireKnownAccounts([account], known);
}

/** `telecom-etl rejects list|replay`: the rows that failed validation, and loading those that now pass. */
export function registerRejectsCommand(program: Command, runtime: Runtime): void {
  const rejects = program.command("rejects").description("rows that failed validation (etl.rejects)");
  withExample(
    rejects,
    "telecom-etl rejects list --stream cdrs --pending",
    "telecom-etl rejects replay --stream cdrs",
  );
  registerListCommand(rejects, runtime);
  registerReplayCommand(rejects, runtime);
}

/** `rejects list`: quarantined rows, newest first, with the raw JSON and the validation issues. */
function registerListCommand(rejects: Command, runtime: Runtime): void {
  const list = rejects
    .command("list")
    .description("show quarantined rows, newest first, with the raw JSON and the validation issues")
    .option("--stream <name>", "only this stream")
    .option("--account <name>", "only this account")
    .option("--pending", "only rows not replayed yet")
    .option("--limit <n>", "at most this many (default 100)")
    .option("--json", "machine-readable output (one JSON array)")
    .action(async (options: Record<string, string | boolean | undefined>, cmd: Command) => {
      const global = globalOptions(cmd);
      const stream = options.stream as string | undefined;
      if (stream !== undefined) getStream(stream);
      const limit = parsePositiveInteger("--limit", options.limit as string | undefined) ?? 100;
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          await requireKnownAccount(ctx, options.account as string | undefined);
          const found = await listRejects(ctx.warehouse.db, {
            stream,
            account: options.account as string | undefined,
            pendingOnly: options.pending === true,
            limit,
          });
          if (global.json || options.json === true) ctx.out(JSON.stringify(found));
          else if (found.length === 0) ctx.out("no rejects");
          else for (const reject of found) ctx.out(formatReject(reject));
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(list, "telecom-etl rejects list --stream cdrs", "telecom-etl rejects list --pending --json");
}

/** `rejects replay`: pending rejects re-validated with the current schemas, those that pass loaded. */
function registerReplayCommand(rejects: Command, runtime: Runtime): void {
  const replay = rejects
    .command("replay")
    .description(
      "re-validate pending rejects with the current schemas and load those that pass (window state untouched)",
    )
    .option("--stream <name>", "only this stream")
    .option("--account <name>", "only this account")
    .option("--lock-timeout <seconds>", "wait this long for a run holding a stream's lock (default 0)")
    .action(async (options: Record<string, string | undefined>, cmd: Command) => {
      const global = globalOptions(cmd);
      if (options.stream !== undefined) getStream(options.stream);
      const lockTimeoutMs = parseLockTimeout(options.lockTimeout);
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          await requireKnownAccount(ctx, options.account);
          const result = await replayRejects(
            {
              warehouse: ctx.warehouse,
              log: ctx.log,
              host: ctx.host,
              lockTimeoutMs,
              secrets: ctx.secrets,
              statementTimeoutMs: ctx.config.loadStatementTimeoutMs,
            },
            { stream: options.stream, account: options.account },
          );
          if (global.json) ctx.out(JSON.stringify(result));
          else if (result.summaries.length === 0) ctx.out("no pending rejects");
          else
            for (const s of result.summaries)
              ctx.out(
                `${s.account}/${s.stream}: ${s.loaded} of ${s.pending} loaded, ${s.stillRejected} still rejected`,
              );
          return result.exitCode;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(replay, "telecom-etl rejects replay", "telecom-etl rejects replay --stream cdrs");
}
