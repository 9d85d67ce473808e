/**
 * A set of row keys that answers "maybe seen" or "surely not seen" in about 2 bytes per key: a
 * scalable Bloom filter (layers of doubling capacity, each at 16 bits and 11 probes per key, so a
 * layer at capacity answers "maybe" for an unseen key about once in 2,000). Written here rather
 * than taken from a library: it is 60 lines over a Uint32Array, and the packages that offer one
 * bring serialisers, counting and hashing variants this needs none of.
 */

const BITS_PER_KEY = 16;
const PROBES = 11;
const FIRST_CAPACITY = 1 << 15;

/** The two hashes of the last {@link hashPair}: no array per key. */
const pair = new Uint32Array(2);

/** Two independent 32-bit hashes of `text` (cyrb53's mixing) into `pair`, for double hashing. */
function hashPair(text: string): void {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  pair[0] = h1;
  pair[1] = h2 | 1;
}

/** One fixed-size Bloom filter. */
class Layer {
  readonly capacity: number;
  readonly #bits: Uint32Array;
  readonly #mask: number;
  count = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
    const bits = capacity * BITS_PER_KEY;
    this.#bits = new Uint32Array(bits / 32);
    this.#mask = bits - 1;
  }

  add(h1: number, h2: number): void {
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.#mask;
      this.#bits[bit >>> 5]! |= 1 << (bit & 31);
    }
    this.count++;
  }

  has(h1: number, h2: number): boolean {
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.#mask;
      if ((this.#bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Keys added (as strings); `mayHave` is never false for a key added, rarely true for another. */
export class KeyFilter {
  readonly #layers: Layer[] = [new Layer(FIRST_CAPACITY)];

  /** Remembers `key`. */
  add(key: string): void {
    let last = this.#layers[this.#layers.length - 1]!;
    if (last.count >= last.capacity) {
      last = new Layer(last.capacity * 2);
      this.#layers.push(last);
    }
    hashPair(key);
    last.add(pair[0]!, pair[1]!);
  }

  /** False when `key` was surely never added; true when it was, or (rarely) when it looks so. */
  mayHave(key: string): boolean {
    hashPair(key);
    const h1 = pair[0]!;
    const h2 = pair[1]!;
    return this.#layers.some((layer) => layer.has(h1, h2));
  }
}
