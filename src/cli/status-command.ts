import type { Command } from "commander";
import { EXIT } from "../exit-codes.js";
import { STREAMS } from "../streams/registry.js";
import type { StreamDefinition } from "../streams/stream-definition.js";
import { sweepAbandonedRuns } from "../warehouse/abandoned-runs.js";
import { streamStatus } from "../warehouse/stream-state.js";
import type { StreamStatus } from "../warehouse/stream-status.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";

/** Lines of `status` for one (account, stream). */
export function formatStreamStatus(s: StreamStatus): string[] {
  const lines = [`${s.account}/${s.stream}`];
  const fullRefresh =
    (STREAMS as Record<string, StreamDefinition | undefined>)[s.stream]?.slicing === "full_refresh";
  const completed = fullRefresh
    ? "full refresh: every run reads all pages (no windows)"
    : s.completedWindows === 0
      ? "no completed window"
      : `completed through ${s.completedThrough} (${s.completedWindows} windows from ${s.firstCompleted}, latest ends ${s.lastCompleted})`;
  lines.push(`  ${completed}`);
  if (s.gaps.length > 0) lines.push(`  gaps: ${s.gaps.map((g) => `${g.start}..${g.end}`).join(", ")}`);
  const open = s.openWindows.filter((w) => w.status !== "failed");
  if (open.length > 0) lines.push(`  open: ${open.map((w) => `${w.slice} (${w.status})`).join(", ")}`);
  for (const w of s.failedWindows)
    lines.push(`  failed ${w.slice} in run ${w.runId}: ${w.error ?? "(no message)"}`);
  const run = s.lastRun;
  if (run) {
    const head = `  last run ${run.runId} (${run.command}) ${run.status}, started ${run.startedAt.toISOString()}`;
    const where = `pid ${run.pid ?? "?"} on host ${run.host || "?"}`;
    if (run.status === "running") lines.push(`${head}, ${where}`);
    else if (run.status === "abandoned")
      lines.push(
        `${head}; its process (${where}) ended without recording it` +
          (run.finishedAt ? `, last activity ${run.finishedAt.toISOString()}` : ""),
      );
    else lines.push(head + (run.finishedAt ? `, finished ${run.finishedAt.toISOString()}` : ""));
  }
  lines.push(`  rows ${s.rows}, rejects ${s.rejectsPending} pending of ${s.rejectsTotal}`);
  return lines;
}

/** `telecom-etl status`: where every (account, stream) stands. */
export function registerStatusCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("status")
    .description(
      "per account and stream: completed through, open and failed windows with their errors, last run, rows, rejects",
    )
    .option("--json", "machine-readable output")
    .action(async (options: { json?: boolean }, cmd: Command) => {
      const global = globalOptions(cmd);
      const json = global.json || options.json === true;
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          // A run killed without recording its end would otherwise show as running forever.
          await sweepAbandonedRuns(ctx.warehouse.db, { host: ctx.host, log: ctx.log });
          const statuses = await streamStatus(ctx.warehouse.db);
          if (json) ctx.out(JSON.stringify(statuses));
          else if (statuses.length === 0) ctx.out("nothing loaded yet; run: telecom-etl run");
          else for (const status of statuses) for (const line of formatStreamStatus(status)) ctx.out(line);
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(
    command,
    "telecom-etl status",
    "telecom-etl status --json | jq '.[] | select(.failedWindows | length > 0)'",
  );
}
