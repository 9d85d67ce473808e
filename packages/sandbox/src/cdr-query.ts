import { CDR_DISPOSITIONS, type CdrDispositionFilter, type CdrType } from "@telecom-etl/platform/cdr.js";
import { decodeCallUuid } from "./call-uuid.js";
import { type CdrStore, type DirectionRows, rowJson } from "./cdr-store.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxAccount } from "./world.js";

/** The filters of `GET /v1/cdr`. Dates are epoch ms of UTC midnights, both inclusive. */
export interface CdrFilter {
  readonly account: SandboxAccount;
  readonly type: CdrType;
  readonly fromMs: number;
  readonly toMs: number;
  readonly disposition: CdrDispositionFilter;
  readonly fromSearch: string | null;
  readonly toSearch: string | null;
  readonly sipTrunk: string | null;
  readonly uuid: string | null;
}

/** Selected rows of one day: all of the day's rows (positions null) or the listed positions. */
export interface SelectionRun {
  readonly dayNumber: number;
  readonly positions: Uint32Array | null;
  readonly length: number;
}

/**
 * The rows a list request covers, in serving order, as runs per day. A selection holds positions
 * only, never the generated days: `rows(run)` fetches a run's day through the bounded day cache
 * (regenerating it byte for byte if it was evicted), so cached selections cannot pin memory.
 */
export interface CdrSelection {
  readonly runs: readonly SelectionRun[];
  readonly total: number;
  rows(run: SelectionRun): DirectionRows;
}

interface CachedSelection {
  readonly selection: CdrSelection;
  readonly computedAtMs: number;
  /** The selection changes when the clock reaches this (the next hidden row becoming visible). */
  readonly validUntilMs: number;
}

const MAX_CACHED = 32;

/**
 * Selects the CDRs a list request covers at a given sandbox time, in serving order: by day, then
 * `date`, then `uuid`. Paging a window re-selects it for every page, so the last selections are
 * cached; each stays valid until the clock reaches the next hidden row's visibility time.
 */
export class CdrQuery {
  private readonly cache = new Map<string, CachedSelection>();

  constructor(private readonly store: CdrStore) {}

  /** Every row matching `filter` visible at `nowMs`. */
  select(filter: CdrFilter, nowMs: number): CdrSelection {
    const trunkName = filter.type === "placed" ? filter.sipTrunk : null;
    const key = [
      this.store.version,
      filter.account.index,
      filter.type,
      filter.fromMs,
      filter.toMs,
      filter.disposition,
      filter.fromSearch,
      filter.toSearch,
      trunkName,
      filter.uuid,
    ].join("|");
    const hit = this.cache.get(key);
    if (hit && hit.computedAtMs <= nowMs && nowMs < hit.validUntilMs) return hit.selection;
    const runs: SelectionRun[] = [];
    let total = 0;
    let validUntilMs = Number.POSITIVE_INFINITY;
    const disposition = filter.disposition === "all" ? -1 : CDR_DISPOSITIONS.indexOf(filter.disposition);
    const trunk = trunkName === null ? -1 : 1 + filter.account.trunks.findIndex((t) => t.name === trunkName);
    const located = filter.uuid === null ? null : decodeCallUuid(this.store.seed, filter.uuid);
    // Rows without the deprecated `uuid` (2026) name their id `call_id`.
    const idField = this.store.ids === "call_id" ? "call_id" : "uuid";
    const plain =
      disposition < 0 && trunk < 0 && !filter.fromSearch && !filter.toSearch && filter.uuid === null;
    for (let day = filter.fromMs / DAY_MS; day <= filter.toMs / DAY_MS; day++) {
      if (day * DAY_MS > nowMs) {
        validUntilMs = Math.min(validUntilMs, day * DAY_MS);
        break;
      }
      if (this.store.isEmpty(filter.account, day)) continue;
      if (located && (located.dayNumber !== day || located.account !== filter.account.index)) continue;
      if (filter.uuid !== null && !located) break;
      const cdrDay = this.store.day(filter.account, day);
      const rows = filter.type === "placed" ? cdrDay.placed : cdrDay.received;
      if (rows.count === 0) continue;
      if (plain && rows.maxVisibleAtMs <= nowMs) {
        runs.push({ dayNumber: day, positions: null, length: rows.count });
        total += rows.count;
        continue;
      }
      const positions: number[] = [];
      for (let i = 0; i < rows.count; i++) {
        const visibleAt = rows.visibleAtMs[i]!;
        if (visibleAt > nowMs) {
          if (visibleAt < validUntilMs) validUntilMs = visibleAt;
          continue;
        }
        if (disposition >= 0 && rows.disposition[i] !== disposition) continue;
        if (trunk >= 0 && rows.trunk[i] !== trunk) continue;
        if (located && rows.index[i] !== located.index) continue;
        if (filter.fromSearch || filter.toSearch) {
          const row = JSON.parse(rowJson(rows, i)) as { from: string; to: string; uuid: string };
          if (filter.fromSearch && !row.from.includes(filter.fromSearch)) continue;
          if (filter.toSearch && !row.to.includes(filter.toSearch)) continue;
        }
        if (located && !rowJson(rows, i).includes(`"${idField}":"${filter.uuid}"`)) continue;
        positions.push(i);
      }
      if (positions.length > 0) {
        runs.push({ dayNumber: day, positions: Uint32Array.from(positions), length: positions.length });
        total += positions.length;
      }
    }
    const { store } = this;
    const { account, type } = filter;
    const selection: CdrSelection = {
      runs,
      total,
      rows: (run) => {
        const cdrDay = store.day(account, run.dayNumber);
        return type === "placed" ? cdrDay.placed : cdrDay.received;
      },
    };
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.delete(key);
    this.cache.set(key, { selection, computedAtMs: nowMs, validUntilMs });
    return selection;
  }
}

/**
 * Calls `visit(rows, run, from, to)` for each run holding some of the selection's rows
 * `[start, end)`, with `[from, to)` the run-relative part of it.
 */
function forEachRunPart(
  selection: CdrSelection,
  start: number,
  end: number,
  visit: (rows: DirectionRows, run: SelectionRun, from: number, to: number) => void,
): void {
  let offset = 0;
  for (const run of selection.runs) {
    if (offset >= end) break;
    const from = Math.max(start - offset, 0);
    const to = Math.min(end - offset, run.length);
    if (from < to) visit(selection.rows(run), run, from, to);
    offset += run.length;
  }
}

/** Calls `visit(rows, position, run)` for the selection's rows `[start, end)` in order. */
export function forEachSelected(
  selection: CdrSelection,
  start: number,
  end: number,
  visit: (rows: DirectionRows, position: number, run: SelectionRun) => void,
): void {
  forEachRunPart(selection, start, end, (rows, run, from, to) => {
    for (let k = from; k < to; k++) visit(rows, run.positions === null ? k : run.positions[k]!, run);
  });
}

/** Appends rows `[a, b)` of `rows` (consecutive positions) as slices, one per chunk they span. */
function pushRange(chunks: Buffer[], rows: DirectionRows, a: number, b: number): void {
  let first = a;
  while (first < b) {
    const chunk = rows.chunkOf[first]!;
    let last = first;
    while (last + 1 < b && rows.chunkOf[last + 1] === chunk) last++;
    chunks.push(rows.chunks[chunk]!.subarray(rows.start[first]!, rows.end[last]!));
    first = last + 1;
  }
}

/** The selection's rows `[start, end)` as buffers of comma-joined JSON (zero-copy slices). */
export function selectedChunks(selection: CdrSelection, start: number, end: number): Buffer[] {
  const chunks: Buffer[] = [];
  forEachRunPart(selection, start, end, (rows, run, from, to) => {
    const { positions } = run;
    if (positions === null) pushRange(chunks, rows, from, to);
    else for (let k = from; k < to; k++) pushRange(chunks, rows, positions[k]!, positions[k]! + 1);
  });
  return chunks;
}
