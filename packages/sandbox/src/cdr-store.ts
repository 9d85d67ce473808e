import { BoundedDayCache } from "./bounded-day-cache.js";
import { type Conversion, conversionsOn, FunnelStore } from "./campaign-funnel.js";
import { type CdrCall, compareCalls, generateCdrDay } from "./generate-cdr-day.js";
import { CHUNK_BYTES, type DayCharges, type DirectionRows, packCdrDay } from "./pack-cdr-day.js";
import { DAY_MS } from "./sandbox-options.js";
import { type CdrIdFields, cdrSerializer } from "./serialize-cdr.js";
import { isWorldDay, type SandboxAccount, type SandboxWorld } from "./world.js";

export type { DayCharges, DirectionRows } from "./pack-cdr-day.js";

/** Most spare buffers kept for reuse (16 MB). */
const MAX_SPARE_CHUNKS = 64;

/** One generated (account, day). */
export interface CdrDay {
  readonly dayNumber: number;
  readonly placed: DirectionRows;
  readonly received: DirectionRows;
  /** Start second of each parent call (to regenerate one call by index). */
  readonly seconds: Int32Array;
  /** The day's conversion calls (to regenerate one by index). */
  readonly conversions: readonly Conversion[];
}

/** The JSON of row `i`. */
export function rowJson(rows: DirectionRows, i: number): string {
  return rows.chunks[rows.chunkOf[i]!]!.toString("latin1", rows.start[i]!, rows.end[i]!);
}

/**
 * Generates (account, day) CDRs on demand and keeps the most recently used days in a bounded
 * LRU (by row count), so a 90-day x 20,000-calls world never sits in memory at once. Per-day
 * charges are tiny and kept forever (invoices need them). Calls started through `POST /v1/calls`
 * are merged into their day.
 */
export class CdrStore {
  private readonly days: BoundedDayCache<CdrDay>;
  private readonly charges = new Map<string, DayCharges>();
  private readonly live = new Map<string, CdrCall[]>();
  private readonly liveByUuid = new Map<string, CdrCall>();
  /** Buffers of evicted days, reused for the next generated days (fewer 256 KB buffers awaiting GC). */
  private readonly spare: Buffer[] = [];
  private readonly newChunk = () => this.spare.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
  /** Bumped whenever a call started through the API is added (selections cached before are stale). */
  version = 0;

  /** Writes a call's list row as the API revision served lays out its ids. */
  readonly serialize: (call: CdrCall) => string;

  constructor(
    private readonly world: SandboxWorld,
    maxRows: number,
    /** The call-id fields rows carry (API revision). */
    readonly ids: CdrIdFields = "uuid",
    /** Where the campaign funnel's conversion calls come from (shared with the short links). */
    private readonly funnel: FunnelStore = new FunnelStore(world),
  ) {
    this.serialize = cdrSerializer(ids);
    this.days = new BoundedDayCache(
      maxRows,
      (day) => day.placed.count + day.received.count,
      (day) => this.recycle(day),
    );
  }

  /** The world's seed (uuids are decoded with it). */
  get seed(): number {
    return this.world.seed;
  }

  /** The day's CDRs (generated now or from the cache). */
  day(account: SandboxAccount, dayNumber: number): CdrDay {
    const key = `${account.index}:${dayNumber}`;
    const hit = this.days.get(key);
    if (hit) return hit;
    const conversions = this.conversions(account, dayNumber);
    const packed = packCdrDay(
      this.world,
      account,
      dayNumber,
      this.live.get(key) ?? [],
      this.serialize,
      conversions,
      this.newChunk,
    );
    this.charges.set(key, packed.charges);
    const day: CdrDay = {
      dayNumber,
      placed: packed.placed,
      received: packed.received,
      seconds: packed.seconds,
      conversions,
    };
    const rows = day.placed.count + day.received.count;
    if (rows === 0) return day;
    this.days.set(key, day);
    return day;
  }

  /**
   * Hands an evicted day's buffers to the next generated days. Callers use a day's rows only
   * synchronously (pages are copied into their answer), so the buffers are free once the current
   * turn of the event loop is over.
   */
  private recycle(day: CdrDay): void {
    setImmediate(() => {
      for (const chunk of [...day.placed.chunks, ...day.received.chunks]) {
        if (chunk.length === CHUNK_BYTES && this.spare.length < MAX_SPARE_CHUNKS) this.spare.push(chunk);
      }
    });
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
    const key = `${account.index}:${Math.floor(call.startMs / DAY_MS)}`;
    this.live.set(key, [...(this.live.get(key) ?? []), call]);
    this.liveByUuid.set(call.uuid, call);
    this.days.delete(key);
    this.charges.delete(key);
    this.version += 1;
  }

  /** The conversion calls starting on a day (campaign funnel, through the shared cache). */
  conversions(account: SandboxAccount, dayNumber: number): Conversion[] {
    return isWorldDay(this.world, dayNumber) ? conversionsOn(this.funnel.of(account), dayNumber) : [];
  }

  /** Every call of the day as objects (generated and API-started), in serving order; not cached. */
  calls(account: SandboxAccount, dayNumber: number): CdrCall[] {
    const live = this.live.get(`${account.index}:${dayNumber}`) ?? [];
    const generated = generateCdrDay(this.world, account, dayNumber, this.conversions(account, dayNumber));
    return [...generated, ...live].sort(compareCalls);
  }

  /** A call started through the API, by uuid. */
  liveCall(uuid: string): CdrCall | undefined {
    return this.liveByUuid.get(uuid);
  }

  /** True when the day has no calls at all (outside the world and no API calls): lets scans skip it cheaply. */
  isEmpty(account: SandboxAccount, dayNumber: number): boolean {
    return !isWorldDay(this.world, dayNumber) && !this.live.has(`${account.index}:${dayNumber}`);
  }

  /** Rows currently cached (for stats). */
  get cachedRowCount(): number {
    return this.days.rows;
  }
}
