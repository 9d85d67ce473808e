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

/**
 * Generates (account, day) CDRs on demand and keeps the most recently used days in a bounded
 * LRU (by row count), so a 90-day x 20,000-calls world never sits in memory at once.
 * Per-day charges are tiny and kept forever (invoices need them).
 */
export class CdrStore {
  private readonly days = new Map<string, CdrDay>();
  private readonly charges = new Map<string, DayCharges>();
  private cachedRows = 0;

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
    const calls = generateCdrDay(this.world, account, dayNumber);
    const byIndex: ServedCdr[] = new Array(calls.length);
    const placed: ServedCdr[] = [];
    const received: ServedCdr[] = [];
    let maxVisibleAtMs = 0;
    let callMicros = 0;
    let forwardMicros = 0;
    let transcriptionMicros = 0;
    for (const call of calls) {
      const row = { call, json: serializeCdr(call) };
      byIndex[call.index] = row;
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

  /** Rows currently cached (for stats). */
  get cachedRowCount(): number {
    return this.cachedRows;
  }
}
