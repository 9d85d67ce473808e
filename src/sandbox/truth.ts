import type { RowIdentity } from "./faults/row-faults.js";
import { isValidRow, ROW_CHANGE_NAMES, serveRow } from "./faults/served-row.js";
import { isListStream, type ListStream } from "./list-streams.js";
import type { PageRow } from "./routes/page-body.js";
import { listRows, type SandboxListName, TRUTH_LISTS } from "./sandbox-lists.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { appendJsonField, formatCdrDate } from "./serialize-cdr.js";
import { transactionTruthLines } from "./truth-ledger.js";
import type { TruthQuery } from "./truth-query.js";
import { RECORD_STREAMS, type RecordStream, recordTruthLines } from "./truth-records.js";
import { SNAPSHOT_STREAMS, type SnapshotStream, snapshotLines } from "./truth-snapshots.js";

export type { TruthQuery } from "./truth-query.js";

/** A truth stream. */
export type TruthStream = SandboxListName | RecordStream | SnapshotStream | "number_catalog";

/** The truth lines of one stream for a query (see {@link truthLines}). */
type TruthSource = (runtime: SandboxRuntime, query: TruthQuery) => string[];

/** One source per name of `names`. */
function sourcesOf<Name extends string>(
  names: readonly Name[],
  source: (name: Name) => TruthSource,
): Record<Name, TruthSource> {
  return Object.fromEntries(names.map((name) => [name, source(name)])) as Record<Name, TruthSource>;
}

/**
 * Where each stream's truth comes from, one registry: the sandbox's lists (`SANDBOX_LISTS`, the
 * rows their routes serve), the record and snapshot streams, and the ledger (its exact numbers as
 * text, see truth-ledger.ts).
 * `number_catalog` takes a country instead of an account (see admin routes).
 */
const TRUTH_SOURCES: Readonly<Partial<Record<Exclude<TruthStream, "number_catalog">, TruthSource>>> = {
  ...sourcesOf(TRUTH_LISTS, (stream) => (runtime, query) => listTruthLines(runtime, stream, query)),
  ...sourcesOf(RECORD_STREAMS, (stream) => (runtime, query) => recordTruthLines(runtime, stream, query)),
  ...sourcesOf(
    SNAPSHOT_STREAMS,
    (stream) => (runtime, query) => snapshotLines(runtime, stream, query.account),
  ),
  transactions: transactionTruthLines,
};

/** Streams the truth export knows: every stream of the registry, and `number_catalog`. */
export const TRUTH_STREAMS: readonly TruthStream[] = [
  ...(Object.keys(TRUTH_SOURCES) as Exclude<TruthStream, "number_catalog">[]),
  "number_catalog",
];

/**
 * The JSON lines a perfect loader holds for `stream` at the current clock.
 *
 * List streams: every visible record byte for byte as the API serves it now (rows changed by the
 * fault profile included when they stay valid for the platform's schema: extra fields, null
 * charges, harmless drift), without the rows the profile makes invalid. Recordings are placed in
 * the range by `created_at` (the end of their call), as the list does. CDR lines carry an extra
 * `direction` (`placed`/`received`); messages carry their own `direction`, and a message's line
 * is its state now (status, charge, delivered_at as listed at the clock). Record and snapshot
 * streams: see truth-records.ts and truth-snapshots.ts. Order is not meaningful.
 */
export function truthLines(
  runtime: SandboxRuntime,
  stream: Exclude<TruthStream, "number_catalog">,
  query: TruthQuery,
): string[] {
  const source = TRUTH_SOURCES[stream];
  if (source === undefined) throw new Error(`no truth for ${stream}: its rows are another stream's truth`);
  return source(runtime, query);
}

/** A served row's fault identity: its list stream, account, day and index. */
function identityOf(stream: ListStream, query: TruthQuery, row: PageRow): RowIdentity {
  return { stream, account: query.account.index, day: row.day, index: row.index };
}

/** The truth lines of a list stream: its rows as served under the fault profile, the invalid ones left out. */
function listTruthLines(runtime: SandboxRuntime, stream: SandboxListName, query: TruthQuery): string[] {
  const { faults } = runtime;
  const faulted = isListStream(stream) && faults.altersRows(stream) ? stream : null;
  const lines: string[] = [];
  for (const row of listRows(runtime, stream, query)) {
    let json = row.json;
    if (faulted !== null) {
      const served = serveRow(faults.profile, faults.seed, identityOf(faulted, query, row), json);
      if (served.change !== null && !isValidRow(faulted, served.fields)) continue;
      json = served.json;
    }
    lines.push(row.direction ? appendJsonField(json, "direction", row.direction) : json);
  }
  return lines;
}

/**
 * The rows the active fault profile changes, visible now in the range: `{stream, kind, rejected,
 * direction (CDRs), raw}` where `raw` is the row exactly as served and `rejected` says whether it
 * fails the platform's schema (then it must end up in the loader's rejects; else it is valid and in
 * the truth). Kinds: the row faults, `null_charge`, `drift` (a row both corrupted and drifted is
 * listed once, under its corruption). Only list streams have row faults.
 */
export function malformedLines(runtime: SandboxRuntime, stream: TruthStream, query: TruthQuery): string[] {
  const { faults } = runtime;
  if (!isListStream(stream) || !faults.altersRows(stream)) return [];
  const lines: string[] = [];
  for (const row of listRows(runtime, stream, query)) {
    const served = serveRow(faults.profile, faults.seed, identityOf(stream, query, row), row.json);
    if (served.change === null) continue;
    const rejected = !isValidRow(stream, served.fields);
    const direction = row.direction ? `"direction":"${row.direction}",` : "";
    lines.push(
      `{"stream":"${stream}","kind":"${ROW_CHANGE_NAMES[served.change]}","rejected":${rejected},${direction}"raw":${served.json}}`,
    );
  }
  return lines;
}

/**
 * CDRs of the range that arrive late (visible 1 h to 48 h after the call), visible yet or not:
 * the generated JSON plus `direction`, `visible_at` and `visible` (at the current clock).
 */
export function lateCdrLines(runtime: SandboxRuntime, query: TruthQuery): string[] {
  const nowMs = runtime.clock.now();
  const lines: string[] = [];
  for (let day = query.fromMs / DAY_MS; day <= query.toMs / DAY_MS; day++) {
    if (runtime.cdrs.isEmpty(query.account, day)) continue;
    for (const call of runtime.cdrs.calls(query.account, day)) {
      if (!call.late) continue;
      let line = appendJsonField(runtime.cdrs.serialize(call), "direction", call.direction);
      line = appendJsonField(line, "visible_at", formatCdrDate(call.visibleAtMs));
      lines.push(appendJsonField(line, "visible", call.visibleAtMs <= nowMs));
    }
  }
  return lines;
}
