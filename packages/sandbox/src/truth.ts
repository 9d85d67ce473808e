import { isKept, ROW_CHANGE_NAMES, type ServedRow } from "./faults/served-row.js";
import { isListStream } from "./list-streams.js";
import { type PageRow, rowIdentity } from "./routes/page-body.js";
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
    (stream) => (runtime, query) => snapshotLines(runtime, stream, query.account, query.nowMs),
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

/** A list row as served now, with whether a loader keeps it. */
interface ServedListRow {
  readonly row: PageRow;
  readonly served: ServedRow;
  readonly kept: boolean;
}

/** Every row of a list in the range as its routes serve it under the fault profile (see FaultInjector.serve). */
function servedListRows(
  runtime: SandboxRuntime,
  stream: SandboxListName,
  query: TruthQuery,
): ServedListRow[] {
  const faulted = isListStream(stream) ? stream : null;
  return listRows(runtime, stream, query).map((row) => {
    if (faulted === null) return { row, served: { json: row.json, change: null }, kept: true };
    const served = runtime.faults.serve(rowIdentity(faulted, query.account, row), row.json);
    return { row, served, kept: isKept(faulted, served) };
  });
}

/** The truth lines of a list stream: its rows as served under the fault profile, the rejected ones left out. */
function listTruthLines(runtime: SandboxRuntime, stream: SandboxListName, query: TruthQuery): string[] {
  return servedListRows(runtime, stream, query)
    .filter(({ kept }) => kept)
    .map(({ row, served }) =>
      row.direction ? appendJsonField(served.json, "direction", row.direction) : served.json,
    );
}

/**
 * The rows the active fault profile changes, visible now in the range: `{stream, kind, rejected,
 * id (CDRs, messages), direction (CDRs), raw}` where `raw` is the row exactly as served, `id` the
 * row's id even when `raw` lost it (so a child names its rejected parent) and `rejected` says
 * whether it fails the platform's schema (then it must end up in the loader's rejects; else it is
 * valid and in the truth). Kinds: the row faults, `null_charge`, `drift` (a row both corrupted and
 * drifted is listed once, under its corruption). Only list streams have row faults.
 */
export function malformedLines(runtime: SandboxRuntime, stream: TruthStream, query: TruthQuery): string[] {
  if (!isListStream(stream) || !runtime.faults.altersRows(stream)) return [];
  const lines: string[] = [];
  for (const { row, served, kept } of servedListRows(runtime, stream, query)) {
    if (served.change === null) continue;
    const id = row.id === undefined ? "" : `"id":${JSON.stringify(row.id)},`;
    const direction = row.direction ? `"direction":"${row.direction}",` : "";
    lines.push(
      `{"stream":"${stream}","kind":"${ROW_CHANGE_NAMES[served.change]}","rejected":${!kept},${id}${direction}"raw":${served.json}}`,
    );
  }
  return lines;
}

/**
 * CDRs of the range that arrive late (visible 1 h to 48 h after the call), visible yet or not:
 * the generated JSON plus `direction`, `visible_at` and `visible` (at the current clock).
 */
export function lateCdrLines(runtime: SandboxRuntime, query: TruthQuery): string[] {
  const { nowMs } = query;
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
