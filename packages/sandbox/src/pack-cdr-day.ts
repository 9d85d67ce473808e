import { CDR_DISPOSITIONS } from "@telecom-etl/platform/cdr.js";
import type { Conversion } from "./campaign-funnel.js";
import {
  type CdrCall,
  compareCalls,
  daySeconds,
  generateCall,
  generateConversionCall,
} from "./generate-cdr-day.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

/**
 * Rows of one direction of one day in serving order, stored compactly: rows' JSON in fixed-size
 * chunks (rows inside a chunk separated by commas, so a run of rows is one zero-copy slice; equal
 * chunk sizes keep the allocator from fragmenting) plus typed arrays of the fields filters need.
 */
export interface DirectionRows {
  readonly count: number;
  readonly chunks: readonly Buffer[];
  /** Chunk of row `i`. */
  readonly chunkOf: Uint16Array;
  /** Row `i` is `chunks[chunkOf[i]][start[i], end[i])`. */
  readonly start: Uint32Array;
  readonly end: Uint32Array;
  readonly visibleAtMs: Float64Array;
  /** Index in `CDR_DISPOSITIONS`. */
  readonly disposition: Uint8Array;
  /** 1 + index in the account's trunks; 0 for none (received calls, API calls). */
  readonly trunk: Uint8Array;
  /** Row index of the call (as encoded in its uuid). */
  readonly index: Uint32Array;
  /** The row's `duration`, seconds. */
  readonly duration: Uint32Array;
  /** The row's `charge` in micro-dollars (0 when it has none). */
  readonly chargeMicros: Float64Array;
  /** Latest `visibleAtMs`: from then on every row is visible. */
  readonly maxVisibleAtMs: number;
}

/** Size of the buffers rows are written into. */
export const CHUNK_BYTES = 256 * 1024;

/** What a day's calls cost the account (every call, visible or not), micro-dollars. */
export interface DayCharges {
  readonly callMicros: number;
  readonly forwardMicros: number;
  readonly transcriptionMicros: number;
}

/** A packed day: both directions and the day's charges. */
export interface PackedDay {
  readonly placed: DirectionRows;
  readonly received: DirectionRows;
  readonly seconds: Int32Array;
  readonly charges: DayCharges;
}

/** Appends rows to fixed-size chunks and growing typed arrays. */
class RowWriter {
  private readonly chunks: Buffer[] = [];
  private chunk: Buffer = Buffer.allocUnsafe(0);
  private at = 0;
  private count = 0;
  private maxVisibleAtMs = 0;
  private chunkOf: Uint16Array;
  private start: Uint32Array;
  private end: Uint32Array;
  private visibleAtMs: Float64Array;
  private disposition: Uint8Array;
  private trunk: Uint8Array;
  private index: Uint32Array;
  private duration: Uint32Array;
  private chargeMicros: Float64Array;

  constructor(
    capacity: number,
    private readonly account: SandboxAccount,
    private readonly serialize: (call: CdrCall) => string,
    private readonly newChunk: () => Buffer,
  ) {
    this.chunkOf = new Uint16Array(capacity);
    this.start = new Uint32Array(capacity);
    this.end = new Uint32Array(capacity);
    this.visibleAtMs = new Float64Array(capacity);
    this.disposition = new Uint8Array(capacity);
    this.trunk = new Uint8Array(capacity);
    this.index = new Uint32Array(capacity);
    this.duration = new Uint32Array(capacity);
    this.chargeMicros = new Float64Array(capacity);
  }

  private grow(): void {
    const size = this.start.length * 2 + 16;
    const copy = <T extends Uint8Array | Uint16Array | Uint32Array | Float64Array>(
      a: T,
      make: (n: number) => T,
    ): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.chunkOf = copy(this.chunkOf, (n) => new Uint16Array(n));
    this.start = copy(this.start, (n) => new Uint32Array(n));
    this.end = copy(this.end, (n) => new Uint32Array(n));
    this.visibleAtMs = copy(this.visibleAtMs, (n) => new Float64Array(n));
    this.disposition = copy(this.disposition, (n) => new Uint8Array(n));
    this.trunk = copy(this.trunk, (n) => new Uint8Array(n));
    this.index = copy(this.index, (n) => new Uint32Array(n));
    this.duration = copy(this.duration, (n) => new Uint32Array(n));
    this.chargeMicros = copy(this.chargeMicros, (n) => new Float64Array(n));
  }

  add(call: CdrCall): void {
    const json = this.serialize(call);
    if (this.at + json.length + 1 > this.chunk.length) {
      this.chunk = json.length + 1 > CHUNK_BYTES ? Buffer.allocUnsafe(json.length + 1) : this.newChunk();
      this.chunks.push(this.chunk);
      this.at = 0;
    }
    if (this.count === this.start.length) this.grow();
    const i = this.count++;
    if (this.at > 0) this.chunk[this.at - 1] = 44; // the comma between this row and the previous one
    this.chunkOf[i] = this.chunks.length - 1;
    this.start[i] = this.at;
    this.at += this.chunk.write(json, this.at, "latin1");
    this.end[i] = this.at;
    this.at += 1;
    this.visibleAtMs[i] = call.visibleAtMs;
    if (call.visibleAtMs > this.maxVisibleAtMs) this.maxVisibleAtMs = call.visibleAtMs;
    this.disposition[i] = CDR_DISPOSITIONS.indexOf(call.disposition);
    this.trunk[i] =
      call.sipTrunk === null ? 0 : 1 + this.account.trunks.findIndex((t) => t.name === call.sipTrunk);
    this.index[i] = call.index;
    this.duration[i] = call.duration;
    this.chargeMicros[i] = call.chargeMicros ?? 0;
  }

  finish(): DirectionRows {
    const n = this.count;
    return {
      count: n,
      chunks: this.chunks,
      chunkOf: this.chunkOf.slice(0, n),
      start: this.start.slice(0, n),
      end: this.end.slice(0, n),
      visibleAtMs: this.visibleAtMs.slice(0, n),
      disposition: this.disposition.slice(0, n),
      trunk: this.trunk.slice(0, n),
      index: this.index.slice(0, n),
      duration: this.duration.slice(0, n),
      chargeMicros: this.chargeMicros.slice(0, n),
      maxVisibleAtMs: this.maxVisibleAtMs,
    };
  }
}

/**
 * Generates and packs one (account, day) in a single pass: calls come out of the generator in
 * start order (child legs wait in a small sorted queue; API and conversion calls, known up front,
 * are merged in as a second sorted stream), are serialized straight
 * into the day's buffers (as `serialize` writes a row of the API revision served) and dropped, so
 * no day-sized set of objects survives to the old heap.
 */
export function packCdrDay(
  world: SandboxWorld,
  account: SandboxAccount,
  dayNumber: number,
  live: readonly CdrCall[],
  serialize: (call: CdrCall) => string,
  conversions: readonly Conversion[],
  newChunk: () => Buffer = () => Buffer.allocUnsafe(CHUNK_BYTES),
): PackedDay {
  const seconds = daySeconds(world, account, dayNumber);
  const capacity = Math.ceil(seconds.length * 1.05) + live.length + conversions.length + 8;
  const placed = new RowWriter(Math.ceil(capacity * 0.7), account, serialize, newChunk);
  const received = new RowWriter(Math.ceil(capacity * 0.4), account, serialize, newChunk);
  let callMicros = 0;
  let forwardMicros = 0;
  let transcriptionMicros = 0;
  const emit = (call: CdrCall) => {
    (call.direction === "placed" ? placed : received).add(call);
    callMicros += call.chargeMicros ?? 0;
    forwardMicros += call.forwardFeeMicros ?? 0;
    transcriptionMicros += call.transcription?.chargeMicros ?? 0;
  };
  const ctx = { world, account, dayNumber };
  // Calls known up front (API calls, conversion calls) form a second sorted stream, merged as the
  // generated calls come: kept out of `pending`, which stays a few calls long.
  const known = [
    ...live,
    ...conversions.map((conversion, k) => generateConversionCall(ctx, conversion, k, seconds.length)),
  ].sort(compareCalls);
  let next = 0;
  const pending: CdrCall[] = [];
  const enqueue = (call: CdrCall) => {
    let lo = 0;
    let hi = pending.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareCalls(pending[mid]!, call) < 0) lo = mid + 1;
      else hi = mid;
    }
    pending.splice(lo, 0, call);
  };
  /** Emits, in serving order, every queued and known call starting before `limitMs`. */
  const emitBefore = (limitMs: number) => {
    for (;;) {
      const queued = pending[0];
      const side = known[next];
      const queuedDue = queued !== undefined && queued.startMs < limitMs;
      if (side === undefined || side.startMs >= limitMs) {
        if (!queuedDue) return;
        emit(pending.shift()!);
      } else if (queuedDue && compareCalls(queued, side) <= 0) emit(pending.shift()!);
      else {
        emit(side);
        next += 1;
      }
    }
  };
  const dayMs = dayNumber * DAY_MS;
  for (let i = 0; i < seconds.length; i++) {
    emitBefore(dayMs + seconds[i]! * 1000);
    for (const call of generateCall(ctx, i, seconds[i]!, seconds.length)) enqueue(call);
  }
  emitBefore(Number.POSITIVE_INFINITY);
  return {
    placed: placed.finish(),
    received: received.finish(),
    seconds,
    charges: { callMicros, forwardMicros, transcriptionMicros },
  };
}
