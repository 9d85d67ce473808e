/**
 * The text a `run` or `backfill` prints when it ends: one line per (account, stream) with windows,
 * rows and rejects, then the errors that explain a non-zero exit. Pure, for tests and the CLI.
 */
import { OUTSIDE_WINDOW } from "../extract/outside-window.js";
import { FIELDS_DISCARDED } from "../extract/schema-contract.js";
import { fateText } from "../extract/unknown-fields.js";
import { describeDifference, recountLines } from "../plan/recount-windows.js";
import { ACCOUNT_STOPS } from "./run-outcome.js";
import type { PipelineResult } from "./run-pipeline.js";

/** Lines of the human-readable summary of a run. */
export function formatRunSummary(result: PipelineResult): string[] {
  const lines = [`run ${result.runId} (${result.status}, exit ${result.exitCode}), today ${result.today}`];
  const width = Math.max(...result.streams.map((s) => `${s.account}/${s.stream}`.length), 10);
  const stopped = stoppedAccounts(result);
  for (const reason of stopped.values()) lines.push(`  stopped: ${reason}`);
  for (const s of result.streams) {
    if (stopped.has(s.account)) continue;
    const name = `${s.account}/${s.stream}`.padEnd(width);
    lines.push(
      `  ${name}  ${s.status.padEnd(11)} windows ${s.windowsLoaded}/${s.windowsPlanned} loaded` +
        ` (${s.windowsCompleted} settled, ${s.windowsFailed} failed${s.windowsHeld > 0 ? `, ${s.windowsHeld} held open` : ""})` +
        `  rows ${s.rowsFetched} fetched: ${s.inserted} inserted, ${s.updated} updated, ${s.unchanged} unchanged` +
        (s.deleted > 0 ? `, ${s.deleted} deleted` : "") +
        `, ${s.rejected} rejected  requests ${s.requests}` +
        (s.throttled > 0 ? ` (${s.throttled} answered 429)` : ""),
    );
    if (s.recount !== null)
      for (const line of recountLines(s.account, s.stream, s.recount)) lines.push(`      ${line}`);
    const asked = Object.entries(s.lookups);
    if (asked.length > 0) {
      lines.push(`      ids asked: ${asked.map(([state, n]) => `${n} ${state}`).join(", ")}`);
    }
    for (const [check, n] of Object.entries(s.quality)) {
      if (check === FIELDS_DISCARDED) {
        lines.push(
          `      rows whose unknown fields were discarded (schema_contract discard): ${n} (see etl.run_slices.quality and telecom-etl schema)`,
        );
        continue;
      }
      if (check === OUTSIDE_WINDOW) {
        lines.push(
          `      rows outside their requested window: ${n} (rejected into etl.rejects where a window is replaced whole, else loaded under their own day; see etl.run_slices.quality)`,
        );
        continue;
      }
      lines.push(
        `      data quality: ${check.replaceAll("_", " ")}: ${n} (loaded as they are; see etl.run_slices.quality)`,
      );
    }
    for (const error of s.errors) lines.push(`      ${error}`);
    for (const field of s.newFields) {
      const fate = field.fate === undefined ? "kept in _extra, not in the schema" : fateText(field);
      lines.push(
        `      new field from the platform: ${field.stream}.${field.field} (${field.exampleType}, first seen in window ${field.window}): ${fate}; see telecom-etl schema`,
      );
    }
  }
  for (const note of result.notes) lines.push(`  ${note}`);
  for (const b of result.budgets) {
    if (b.throttled > 0) {
      lines.push(
        `  rate budget of ${b.accounts.join(", ")}: ${b.throttled} answer(s) 429, settled at ${b.currentRate.toFixed(2)} req/s (max ${b.maxRate})`,
      );
    }
  }
  return lines;
}

/**
 * The text `telecom-etl recount` prints: one line per window that differs (it was opened again:
 * the next run reads it), why a stream's re-count stopped or an account could not be read, then
 * one line of totals.
 */
export function formatRecountSummary(result: PipelineResult): string[] {
  const lines = [
    `recount ${result.runId} (${result.status}, exit ${result.exitCode}), today ${result.today}`,
  ];
  const stopped = stoppedAccounts(result);
  for (const reason of stopped.values()) lines.push(`  stopped: ${reason}`);
  let windows = 0;
  let requests = 0;
  let differing = 0;
  for (const s of result.streams) {
    if (stopped.has(s.account)) continue;
    for (const error of s.errors) lines.push(`  ${s.account}/${s.stream}: ${error}`);
    if (s.recount === null) continue;
    windows += s.recount.windows;
    requests += s.recount.requests;
    differing += s.recount.differing.length;
    for (const d of s.recount.differing)
      lines.push(`  differs: ${describeDifference(s.account, s.stream, d.window, d.counts)}: opened again`);
    if (s.recount.stopped !== undefined) lines.push(`  ${s.account}/${s.stream}: ${s.recount.stopped}`);
  }
  for (const note of result.notes) lines.push(`  ${note}`);
  lines.push(
    `  ${windows} settled window(s) checked against the platform's totals (${requests} request(s)): ` +
      (differing === 0
        ? "all agree"
        : `${differing} differ, opened again: the next run (or a backfill of their days) reads them again`),
  );
  return lines;
}

/**
 * Accounts that stopped before loading anything (the key refused, the host unreachable), each with
 * the one reason: said once per account, not once per stream.
 */
function stoppedAccounts(result: PipelineResult): Map<string, string> {
  const stopped = new Map<string, string>();
  for (const account of new Set(result.streams.map((s) => s.account))) {
    const streams = result.streams.filter((s) => s.account === account);
    const stop = streams.find((s) => ACCOUNT_STOPS.includes(s.status));
    if (stop === undefined || streams.some((s) => s.windowsLoaded > 0)) continue;
    stopped.set(account, (stop.errors[0] ?? stop.status).replace(/^stream \S+ stopped: /, ""));
  }
  return stopped;
}

/** The machine-readable summary (`--json`); `resume`: the line saying how to finish an interrupted run. */
export function runSummaryJson(result: PipelineResult, resume?: string): string {
  return JSON.stringify({
    ...result,
    runStartedAt: result.runStartedAt.toISOString(),
    ...(resume === undefined ? {} : { resume }),
  });
}
