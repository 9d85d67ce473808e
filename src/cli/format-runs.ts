/**
 * The text of `telecom-etl runs list`, `runs show` and `schema`: pure, from records read back from
 * the warehouse, so tests check the lines without a database.
 */
import { recountLines } from "../pipeline/plan/recount-windows.js";
import { describeDbtStep } from "../transform/dbt-step-record.js";
import { describeRetired, type RetiredPartition } from "../warehouse/admin/partition-retention.js";
import type { RunRecord, RunStreamFigures, RunWindowProblem } from "../warehouse/state/run-history.js";
import { runTotals } from "../warehouse/state/run-history.js";
import type { UnknownField } from "../warehouse/state/unknown-fields.js";

/** `3m12s`, `48s`, `1h02m` for a duration; `running` without an end. */
export function formatDuration(startedAt: Date, finishedAt: Date | null): string {
  if (finishedAt === null) return "-";
  const seconds = Math.max(0, Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

function exitOf(run: RunRecord): string {
  if (run.exitCode === null) return "exit -";
  return run.loadExitCode !== null && run.loadExitCode !== run.exitCode
    ? `exit ${run.exitCode} (load ${run.loadExitCode})`
    : `exit ${run.exitCode}`;
}

function dbtVerdict(run: RunRecord): string {
  if (run.dbt === null || run.dbt.steps.length === 0) return "";
  const failed = run.dbt.steps.filter((s) => !s.ok).map((s) => s.step);
  return failed.length > 0 ? `  ${failed.join(", ")} failed` : "  dbt ok";
}

/** One line per run, newest first: what it did at a glance. */
export function formatRunList(runs: readonly RunRecord[]): string[] {
  if (runs.length === 0) return ["no run recorded yet; run: telecom-etl nightly"];
  return runs.map((run) => {
    const t = runTotals(run);
    const problems = [
      t.windowsHeld > 0 ? `${t.windowsHeld} held` : "",
      t.windowsFailed > 0 ? `${t.windowsFailed} failed` : "",
    ].filter(Boolean);
    return (
      `#${run.id} ${run.command} ${run.status} ${exitOf(run)}  ${run.startedAt.toISOString()} ${formatDuration(run.startedAt, run.finishedAt)}` +
      `  windows ${t.windowsLoaded}/${t.windowsPlanned}${problems.length > 0 ? ` (${problems.join(", ")})` : ""}` +
      `  rows ${t.rowsFetched} fetched, ${t.rowsInserted} inserted, ${t.rowsUpdated} updated, ${t.rowsRejected} rejected` +
      (t.rowsDeleted > 0 ? `, ${t.rowsDeleted} deleted` : "") +
      recountVerdict(run) +
      `  requests ${t.requests}${t.throttled > 0 ? ` (${t.throttled} answered 429)` : ""}` +
      dbtVerdict(run) +
      (run.newFields > 0 ? `  ${run.newFields} new field(s)` : "") +
      (run.newColumns > 0 ? `  ${run.newColumns} column(s) added (schema_contract evolve)` : "")
    );
  });
}

/** `  re-count 1 window(s) differed` for a run whose re-count found windows to read again; empty otherwise. */
function recountVerdict(run: RunRecord): string {
  const differed = run.streams.reduce((n, s) => n + (s.recount?.differing.length ?? 0), 0);
  return differed > 0 ? `  re-count: ${differed} window(s) differed` : "";
}

function streamLine(s: RunStreamFigures, width: number): string[] {
  const name = `${s.account}/${s.stream}`.padEnd(width);
  const lines = [
    `    ${name}  ${s.status.padEnd(11)} windows ${s.windowsLoaded}/${s.windowsPlanned} loaded (${s.windowsSettled} settled, ${s.windowsFailed} failed, ${s.windowsHeld} held open)` +
      `  rows ${s.rowsFetched} fetched: ${s.rowsInserted} inserted, ${s.rowsUpdated} updated, ${s.rowsDeleted} deleted, ${s.rowsRejected} rejected` +
      `  requests ${s.requests} (${s.retries} retries, ${s.throttled} answered 429)`,
  ];
  if (s.recount !== null)
    for (const line of recountLines(s.account, s.stream, s.recount)) lines.push(`        ${line}`);
  const quality = Object.entries(s.quality);
  if (quality.length > 0)
    lines.push(
      `        data quality: ${quality.map(([check, n]) => `${check.replaceAll("_", " ")}: ${n}`).join(", ")}`,
    );
  for (const error of s.errors) lines.push(`        ${error}`);
  return lines;
}

/**
 * Every detail of one run: header, streams (with their re-counts), held/failed windows, windows
 * that deleted stored rows, dbt steps, new fields.
 */
export function formatRunDetail(
  run: RunRecord,
  windows: readonly RunWindowProblem[],
  newFields: readonly UnknownField[],
): string[] {
  const lines = [`run ${run.id}: ${run.command}, ${run.status}, ${exitOf(run)}`];
  lines.push(
    `  started ${run.startedAt.toISOString()}, ` +
      (run.finishedAt === null
        ? "not finished"
        : `finished ${run.finishedAt.toISOString()} (${formatDuration(run.startedAt, run.finishedAt)})`) +
      `, host ${run.host || "?"}, pid ${run.pid ?? "?"}`,
  );
  lines.push(`  arguments ${JSON.stringify(run.arguments)}`);
  const t = runTotals(run);
  lines.push(
    `  totals: windows ${t.windowsLoaded}/${t.windowsPlanned} loaded (${t.windowsHeld} held, ${t.windowsFailed} failed), rows ${t.rowsFetched} fetched, ${t.rowsInserted} inserted, ${t.rowsUpdated} updated, ${t.rowsDeleted} deleted, ${t.rowsRejected} rejected, requests ${t.requests} (${t.throttled} answered 429)`,
  );
  if (run.streams.length > 0) {
    lines.push("  streams:");
    const width = Math.max(...run.streams.map((s) => `${s.account}/${s.stream}`.length), 10);
    for (const s of run.streams) lines.push(...streamLine(s, width));
  }
  const problems = windows.filter((w) => w.status !== "succeeded");
  const deletions = windows.filter((w) => w.rowsDeleted > 0);
  if (problems.length > 0) {
    lines.push("  windows held, failed or skipped:");
    for (const w of problems) {
      const status = w.holdReason === null ? w.status : `${w.status} (${w.holdReason})`;
      lines.push(`    ${w.account}/${w.stream} ${w.window} ${status}: ${w.error ?? "(no message)"}`);
    }
  }
  if (deletions.length > 0) {
    lines.push("  windows whose read deleted stored rows (the platform no longer lists them):");
    for (const d of deletions)
      lines.push(`    ${d.account}/${d.stream} ${d.window}: ${d.rowsDeleted} deleted`);
  }
  if (run.dbt !== null) {
    lines.push(run.dbt.steps.length === 0 ? "  dbt: not run (the load did not run)" : "  dbt:");
    for (const step of run.dbt.steps)
      lines.push(`    ${describeDbtStep(step)} (${(step.durationMs / 1000).toFixed(1)} s)`);
  }
  lines.push(...retentionLines(run.retiredPartitions));
  if (newFields.length > 0) {
    lines.push("  new fields from the platform, first seen in this run (kept in _extra, not in the schema):");
    for (const f of newFields)
      lines.push(
        `    ${f.stream}.${f.field} (${f.exampleType}) account ${f.firstSeenAccount}, window ${f.firstSeenWindow}`,
      );
  }
  return lines;
}

/** `telecom-etl schema`: every field the platform sends that no schema declares. */
export function formatUnknownFields(fields: readonly UnknownField[]): string[] {
  if (fields.length === 0)
    return ["no unknown field: every field the platform sent is in the loader's schema"];
  const lines = [
    `${fields.length} field(s) the platform sends that the loader's schema does not know (kept in _extra):`,
  ];
  for (const f of fields) {
    lines.push(
      `  ${f.stream}.${f.field}  ${f.exampleType}  first seen run ${f.firstSeenRun ?? "?"} at ${f.firstSeenAt.toISOString()}` +
        ` (account ${f.firstSeenAccount}, window ${f.firstSeenWindow}), last seen run ${f.lastSeenRun ?? "?"} at ${f.lastSeenAt.toISOString()},` +
        ` ${f.rowsSeen} row(s) read, accounts ${f.accounts.join(", ")}`,
    );
  }
  lines.push(
    "  map a field in packages/platform/src/ (and its stream's columns) to make it a column; _extra keeps it meanwhile",
  );
  return lines;
}

/** The unknown fields of one (account, stream): those of its stream (or child tables) seen for that account. */
export function unknownFieldsOfStream(
  fields: readonly UnknownField[],
  account: string,
  streams: readonly string[],
): UnknownField[] {
  return fields.filter((f) => streams.includes(f.stream) && f.accounts.includes(account));
}

/**
 * `status`'s line naming a stream's unknown fields (and what its schema contract does with them,
 * when it has one); undefined when it has none.
 */
export function unknownFieldsLine(fields: readonly UnknownField[], contract?: string): string | undefined {
  if (fields.length === 0) return undefined;
  const named = fields.map((f) => `${f.field} (${f.exampleType}, since run ${f.firstSeenRun ?? "?"})`);
  const where = contract === undefined ? "kept in _extra" : `schema_contract ${contract}`;
  return `  fields not in the schema (${where}; see telecom-etl schema): ${named.join(", ")}`;
}

/** What retention did after the run's load, as `runs show` prints it (nothing when it did not run). */
function retentionLines(retired: unknown): string[] {
  if (retired === null || retired === undefined) return [];
  if (!Array.isArray(retired)) {
    const failure = retired as { error?: unknown; cutoff?: unknown };
    return [`  retention failed (months before ${String(failure.cutoff)} kept): ${String(failure.error)}`];
  }
  if (retired.length === 0) return ["  retention: no month old enough to retire"];
  return ["  retention:", ...(retired as RetiredPartition[]).map((p) => `    ${describeRetired(p)}`)];
}
