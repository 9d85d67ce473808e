import type { CdrType } from "../platform/cdr.js";
import { type CdrCall, generateCdrDay } from "./generate-cdr-day.js";
import { serializeCdr } from "./serialize-cdr.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

/** A call with its pre-serialized list JSON. */
export interface ServedCdr {
  readonly call: CdrCall;
  readonly json: string;
}

/** One generated (account, day): rows per direction in serving order, and lookup by row index. */
export interface CdrDay {
  readonly dayNumber: number;
  readonly placed: readonly ServedCdr[];
  readonly received: readonly ServedCdr[];
  readonly byIndex: readonly ServedCdr[];
  /** Latest `visibleAtMs` of the day: from then on every row is visible. */
  readonly maxVisibleAtMs: number;
}

/** What a day's calls cost the account (every call, visible or not), micro-dollars. */
export interface DayCharges {
  readonly callMicros: number;
  readonly forwardMicros: number;
  readonly transcriptionMicros: number;
}

function emptyDay(dayNumber: number): CdrDay {
  return { dayNumber, placed: [], received: [], byIndex: [], maxVisibleAtMs: 0 };
}

/**
 * Generates (account, day) CDRs on demand and keeps the most recently used days in a bounded
 * LRU (by row count), so a 90-day x 20,000-calls world never sits in memory at once.
 * Per-day charges are tiny and kept forever (invoices need them).
 */
export class CdrStore {
  private readonly days = new Map<string, CdrDay>();
  private readonly charges = new Map<string, DayCharges>();
  private readonly live = new Map<string, CdrCall[]>();
  private readonly liveByUuid = new Map<string, ServedCdr>();
  private cachedRows = 0;
  /** Bumped whenever a call started through the API is added (selections cached before are stale). */
  version = 0;

  constructor(
    private readonly world: SandboxWorld,
    private readonly maxRows: number,
  ) {}

  /** The day's CDRs (generated now or from the cache). */
  day(account: SandboxAccount, dayNumber: number): CdrDay {
    const key = `${account.index}:${dayNumber}`;
    const hit = this.days.get(key);
    if (hit) {
      this.days.delete(key);
      this.days.set(key, hit);
      return hit;
    }
    const liveCalls = this.live.get(key);
    const calls = generateCdrDay(this.world, account, dayNumber);
    if (calls.length === 0 && !liveCalls) return emptyDay(dayNumber);
    const generated = calls.length;
    if (liveCalls) {
      calls.push(...liveCalls);
      calls.sort((a, b) => a.startMs - b.startMs || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
    }
    const byIndex: ServedCdr[] = new Array(generated);
    const placed: ServedCdr[] = [];
    const received: ServedCdr[] = [];
    let maxVisibleAtMs = 0;
    let callMicros = 0;
    let forwardMicros = 0;
    let transcriptionMicros = 0;
    for (const call of calls) {
      const row = this.liveByUuid.get(call.uuid) ?? { call, json: serializeCdr(call) };
      if (row.call.index < generated && !this.liveByUuid.has(call.uuid)) byIndex[call.index] = row;
      (call.direction === "placed" ? placed : received).push(row);
      if (call.visibleAtMs > maxVisibleAtMs) maxVisibleAtMs = call.visibleAtMs;
      callMicros += call.chargeMicros ?? 0;
      forwardMicros += call.forwardFeeMicros ?? 0;
      transcriptionMicros += call.transcription?.chargeMicros ?? 0;
    }
    this.charges.set(key, { callMicros, forwardMicros, transcriptionMicros });
    const day: CdrDay = { dayNumber, placed, received, byIndex, maxVisibleAtMs };
    this.days.set(key, day);
    this.cachedRows += calls.length;
    for (const [oldKey, old] of this.days) {
      if (this.cachedRows <= this.maxRows || oldKey === key) break;
      this.days.delete(oldKey);
      this.cachedRows -= old.byIndex.length;
    }
    return day;
  }

  /** Rows of one direction of a day. */
  rows(account: SandboxAccount, dayNumber: number, type: CdrType): readonly ServedCdr[] {
    const day = this.day(account, dayNumber);
    return type === "placed" ? day.placed : day.received;
  }

  /** What the day's calls cost (generates the day once if needed). */
  dayCharges(account: SandboxAccount, dayNumber: number): DayCharges {
    const key = `${account.index}:${dayNumber}`;
    const known = this.charges.get(key);
    if (known) return known;
    this.day(account, dayNumber);
    return this.charges.get(key)!;
  }

  /** Adds a call started through `POST /v1/calls` (visible from its `visibleAtMs`). */
  addLive(account: SandboxAccount, call: CdrCall): void {
    const dayNumber = Math.floor(call.startMs / 86_400_000);
    const key = `${account.index}:${dayNumber}`;
    const list = this.live.get(key) ?? [];
    list.push(call);
    this.live.set(key, list);
    this.liveByUuid.set(call.uuid, { call, json: serializeCdr(call) });
    const cached = this.days.get(key);
    if (cached) {
      this.days.delete(key);
      this.cachedRows -= cached.byIndex.length;
    }
    this.charges.delete(key);
    this.version += 1;
  }

  /** A call started through the API, by uuid. */
  liveCall(uuid: string): ServedCdr | undefined {
    return this.liveByUuid.get(uuid);
  }

  /** True when the day has no calls at all (outside the world and no API calls): lets scans skip it cheaply. */
  isEmpty(account: SandboxAccount, dayNumber: number): boolean {
    const ms = dayNumber * 86_400_000;
    return (
      (ms < this.world.startMs || ms >= this.world.endMs) && !this.live.has(`${account.index}:${dayNumber}`)
    );
  }

  /** Rows currently cached (for stats). */
  get cachedRowCount(): number {
    return this.cachedRows;
  }
}
