import type { Command } from "commander";
import { streamStatus } from "../warehouse/stream-state.js";
import type { StreamStatus } from "../warehouse/stream-status.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { EXIT } from "./exit-codes.js";
import { globalOptions, withExample } from "./global-options.js";

/** Lines of `status` for one (account, stream). */
export function formatStreamStatus(s: StreamStatus): string[] {
  const lines = [`${s.account}/${s.stream}`];
  const completed =
    s.completedWindows === 0
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
    lines.push(
      `  last run ${run.runId} (${run.command}) ${run.status}, started ${run.startedAt.toISOString()}` +
        (run.finishedAt ? `, finished ${run.finishedAt.toISOString()}` : ""),
    );
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
