/**
 * The one alert a run sends (Slack-compatible `{"text": …}`): when the command ends with a code an
 * on-call engineer must act on, or a loaded source is stale. It names the run, each account and
 * stream that went wrong with its windows (the errors name them), the stale sources, and what to
 * do. Pure: the CLI masks every known secret in it and posts it.
 */
import { EXIT, type ExitCode } from "../core/exit-codes.js";
import type { RunEnd } from "./run-end.js";

/** What each exit code means and what to do about it, in one sentence each. */
const WHAT_TO_DO: Readonly<Partial<Record<ExitCode, string>>> = {
  [EXIT.workFailed]:
    "a window failed or was held open (nothing of it changed): failed windows are retried by the next run, held ones re-read every run until a read loads cleanly; read the lines above (too many rejects: `telecom-etl rejects list --pending`; a shrink or a drift the platform really made: rerun with `--accept-shrink`/`--accept-drift ACCOUNT/STREAM/DAY`; a missing permission: grant it to the key)",
  [EXIT.usage]:
    "a configuration or credentials error stopped the run before it loaded anything: fix what the line says, then run it again",
  [EXIT.locked]:
    "another run holds the lock of a stream (see `telecom-etl status`): nothing is lost, the next run loads what this one could not; if no run is alive, its lock went with its connection",
  [EXIT.transformFailed]:
    "a dbt model or test failed (the loaded data is intact; marts downstream of it were not rebuilt): fix the data or the model, then `telecom-etl transform`",
  [EXIT.sourcesStale]:
    "a loaded stream's table got no new or changed row for longer than its error limit (72 h): check that the platform still sends data for the account and that the loader runs (`telecom-etl status`)",
  [EXIT.interrupted]:
    "the run was interrupted (SIGINT/SIGTERM): completed windows are kept, the next run loads the rest",
};

/** Codes that never alert by themselves: success, and a few rows quarantined (a success by policy, as systemd's `SuccessExitStatus=3`). */
const QUIET_CODES: readonly ExitCode[] = [EXIT.ok, EXIT.quarantined];

const MAX_LINES_PER_STREAM = 3;
const MAX_STREAMS = 10;

/** The stale (or nearly stale) sources the nightly's freshness step named. */
function staleSources(end: RunEnd): { failures: readonly string[]; warnings: readonly string[] } {
  const step = end.dbtSteps.find((s) => s.step === "dbt source freshness");
  return { failures: step?.failures ?? [], warnings: step?.warnings ?? [] };
}

/** The alert's text, or undefined when the run ended well and no source is stale. */
export function alertText(end: RunEnd): string | undefined {
  const stale = staleSources(end);
  if (QUIET_CODES.includes(end.exitCode) && stale.failures.length + stale.warnings.length === 0)
    return undefined;
  const run = end.result === undefined ? "" : ` (run ${end.result.runId})`;
  const lines = [`telecom-etl ${end.command}${run} on ${end.host} ended with exit ${end.exitCode}`];
  if (end.error !== undefined) lines.push(`• ${end.error}`);
  const troubled = (end.result?.streams ?? []).filter(
    (s) => !["succeeded", "not_provisioned"].includes(s.status) || s.errors.length > 0,
  );
  for (const s of troubled.slice(0, MAX_STREAMS)) {
    const windows = `${s.windowsFailed} failed, ${s.windowsHeld} held open of ${s.windowsPlanned} window(s)`;
    lines.push(`• account ${s.account}, stream ${s.stream}: ${s.status} (${windows})`);
    for (const error of s.errors.slice(0, MAX_LINES_PER_STREAM)) lines.push(`    ${error}`);
    if (s.errors.length > MAX_LINES_PER_STREAM)
      lines.push(`    … and ${s.errors.length - MAX_LINES_PER_STREAM} more`);
  }
  if (troubled.length > MAX_STREAMS) lines.push(`• … and ${troubled.length - MAX_STREAMS} more stream(s)`);
  for (const step of end.dbtSteps.filter((s) => !s.ok && s.step !== "dbt source freshness")) {
    lines.push(`• ${step.step} failed: ${step.failures.join("; ") || step.generalError || "see dbt's log"}`);
  }
  for (const source of stale.failures) lines.push(`• stale: ${source}`);
  for (const source of stale.warnings) lines.push(`• nearly stale (past warn_after, 36 h): ${source}`);
  const todo = WHAT_TO_DO[end.exitCode];
  if (todo !== undefined) lines.push(`What to do: ${todo}.`);
  // A stale source in a run whose code says something worse: its own advice too.
  if (stale.failures.length > 0 && end.exitCode !== EXIT.sourcesStale)
    lines.push(`What to do about the stale source: ${WHAT_TO_DO[EXIT.sourcesStale]}.`);
  else if (todo === undefined && stale.warnings.length > 0)
    lines.push(
      "What to do: a source is getting old; check that the platform still sends data for the account before it passes its error limit (72 h).",
    );
  if (end.result !== undefined) lines.push(`Details: telecom-etl runs show ${end.result.runId}`);
  return lines.join("\n");
}
