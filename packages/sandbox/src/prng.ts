/**
 * Seeded randomness for the sandbox: a 32-bit string/number hash to derive independent seeds per
 * (seed, account, stream, day, row), and mulberry32, a fast generator with good enough statistics.
 */

/** Hashes any mix of strings and numbers to an unsigned 32-bit integer (FNV-1a + murmur finalizer). */
export function hash32(...parts: ReadonlyArray<string | number>): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const text = typeof part === "number" ? String(part) : part;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x1f;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) derived from `parts` alone: a stateless coin for per-row decisions. */
export function unitHash(...parts: ReadonlyArray<string | number>): number {
  return hash32(...parts) / 4294967296;
}

/** A seeded pseudo-random generator (mulberry32) with the helpers the generators need. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A uniform number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An unsigned 32-bit integer. */
  uint32(): number {
    return Math.floor(this.next() * 4294967296) >>> 0;
  }

  /** An integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One element chosen by weight (weights need not sum to 1). */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i] as number;
      if (r < 0) return items[i] as T;
    }
    return items[items.length - 1] as T;
  }

  /** One element chosen from a prepared {@link WeightedTable} (no per-call allocation). */
  fromTable<T>(table: WeightedTable<T>): T {
    const r = this.next() * table.total;
    const { cumulative, items } = table;
    let i = 0;
    while (i < cumulative.length - 1 && r >= cumulative[i]!) i++;
    return items[i] as T;
  }

  /** A string of `length` digits. */
  digits(length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += String(Math.floor(this.next() * 10));
    return out;
  }

  /** A string of `length` lowercase hex characters. */
  hex(length: number): string {
    let out = "";
    while (out.length < length) out += this.uint32().toString(16).padStart(8, "0");
    return out.slice(0, length);
  }

  /** A standard normal variate (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

/** A fast numeric hash of up to four 32-bit integers (for per-row seeds on hot paths). */
export function mix32(a: number, b: number, c = 0, d = 0): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ b, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16) ^ c, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ d, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Eight lowercase hex characters of an unsigned 32-bit integer. */
export function hex8(value: number): string {
  return (
    HEX[(value >>> 24) & 0xff]! +
    HEX[(value >>> 16) & 0xff]! +
    HEX[(value >>> 8) & 0xff]! +
    HEX[value & 0xff]!
  );
}

/** Items with precomputed cumulative weights, for {@link Rng.fromTable}. */
export interface WeightedTable<T> {
  readonly items: readonly T[];
  readonly cumulative: Float64Array;
  readonly total: number;
}

/** Prepares a weighted table. */
export function weightedTable<T>(items: readonly T[], weights: readonly number[]): WeightedTable<T> {
  const cumulative = new Float64Array(items.length);
  let total = 0;
  items.forEach((_, i) => {
    total += weights[i] ?? 0;
    cumulative[i] = total;
  });
  return { items, cumulative, total };
}
