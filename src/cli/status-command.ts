import type { Command } from "commander";
import { settingsOf } from "../config/config.js";
import { EXIT } from "../core/exit-codes.js";
import { landingTables, STREAMS, trackedKinds } from "../streams/registry.js";
import type { StreamDefinition } from "../streams/stream-definition.js";
import { sweepAbandonedRuns } from "../warehouse/coordination/abandoned-runs.js";
import { runLabel } from "../warehouse/state/run-history.js";
import { streamStatus } from "../warehouse/state/stream-state.js";
import type { StreamStatus, WindowAttempt } from "../warehouse/state/stream-status.js";
import { listUnknownFields } from "../warehouse/state/unknown-fields.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { unknownFieldsLine, unknownFieldsOfStream } from "./format-runs.js";
import { globalOptions, withExample } from "./global-options.js";

/** `2026-09-15..2026-09-16 (run 7)` lists of window attempts. */
function windowList(windows: readonly WindowAttempt[]): string {
  return windows.map((w) => `${w.slice} (run ${w.runId})`).join(", ");
}

/** Lines of `status` for one (account, stream). */
export function formatStreamStatus(s: StreamStatus, settleHours?: number): string[] {
  const lines = [`${s.account}/${s.stream}`];
  const slicing = (STREAMS as Record<string, StreamDefinition | undefined>)[s.stream]?.slicing;
  const completed =
    slicing === "full_refresh"
      ? "full refresh: every run reads all pages (no windows)"
      : slicing === "lookup"
        ? "lookup: each id is asked about until its answer is final (no windows)"
        : s.completedWindows === 0
          ? "no settled window yet"
          : `settled through ${s.completedThrough} (${s.completedWindows} windows from ${s.firstCompleted}, latest ends ${s.lastCompleted})`;
  lines.push(`  ${completed}`);
  if (s.gaps.length > 0) lines.push(`  gaps: ${s.gaps.map((g) => `${g.start}..${g.end}`).join(", ")}`);
  if (s.unsettledWindows.length > 0) {
    const until = settleHours === undefined ? "" : ` until read ${settleHours} h after their end`;
    lines.push(`  unsettled (loaded, read again by every run${until}): ${windowList(s.unsettledWindows)}`);
  }
  for (const w of s.heldWindows)
    lines.push(`  held open ${w.slice} in run ${w.runId}: ${w.error ?? "(no message)"}`);
  for (const w of s.failedWindows)
    lines.push(`  failed ${w.slice} in run ${w.runId}: ${w.error ?? "(no message)"}`);
  const skipped = s.openWindows.filter((w) => w.status === "skipped");
  for (const w of skipped) lines.push(`  skipped in run ${w.runId}: ${w.error ?? "(no message)"}`);
  const run = s.lastRun;
  if (run) {
    const head = `  last ${runLabel(run.command, run.runId)} ${run.status}, started ${run.startedAt.toISOString()}`;
    // How this stream ended in that run, when it differs from the run as a whole (in a `partial`
    // run one stream may have succeeded while another failed or was skipped).
    const stream =
      run.streamStatus === null || run.streamStatus === "running" || run.streamStatus === run.status
        ? ""
        : `; this stream: ${run.streamStatus}${run.errors[0] ? ` (${run.errors[0]})` : ""}`;
    const where = `pid ${run.pid ?? "?"} on host ${run.host || "?"}`;
    if (run.status === "running") lines.push(`${head}, ${where}`);
    else if (run.status === "abandoned")
      lines.push(
        `${head}; its process (${where}) ended without recording it` +
          (run.finishedAt ? `, last activity ${run.finishedAt.toISOString()}` : ""),
      );
    else lines.push(head + (run.finishedAt ? `, finished ${run.finishedAt.toISOString()}` : "") + stream);
  } else {
    lines.push("  never run yet");
  }
  lines.push(`  rows ${s.rows}, rejects ${s.rejectsPending} pending of ${s.rejectsTotal}`);
  const tracked = Object.entries(s.tracked);
  if (tracked.length > 0) {
    lines.push(`  tracked ids: ${tracked.map(([state, n]) => `${n} ${state}`).join(", ")}`);
  }
  return lines;
}

/** `telecom-etl status`: where every (account, stream) stands. */
export function registerStatusCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("status")
    .description(
      "per configured account and stream: settled through, unsettled, held and failed windows, last run, rows, rejects",
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
          const configured = ctx.config.accounts.flatMap((a) =>
            a.streams.map((stream) => ({ account: a.name, stream })),
          );
          const statuses = await streamStatus(ctx.warehouse.db, {
            configured,
            tables: landingTables(),
            trackedKinds: trackedKinds(),
          });
          // Fields the platform sends that no schema declares, per stream and its child tables.
          const unknown = await listUnknownFields(ctx.warehouse.db);
          const unknownOf = (s: StreamStatus) =>
            unknownFieldsOfStream(unknown, s.account, [
              s.stream,
              ...((STREAMS as Record<string, StreamDefinition | undefined>)[s.stream]?.children ?? []).map(
                (c) => c.name,
              ),
            ]);
          if (json) ctx.out(JSON.stringify(statuses.map((s) => ({ ...s, unknownFields: unknownOf(s) }))));
          else if (statuses.length === 0) ctx.out("nothing configured or loaded yet; run: telecom-etl run");
          else {
            for (const status of statuses) {
              const { settleHours, schemaContract } = settingsOf(ctx.config, status.stream);
              for (const line of formatStreamStatus(status, settleHours)) ctx.out(line);
              const fieldsLine = unknownFieldsLine(unknownOf(status), schemaContract);
              if (fieldsLine !== undefined) ctx.out(fieldsLine);
            }
          }
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
