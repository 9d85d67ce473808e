/**
 * A set of row keys that answers "maybe seen" or "surely not seen" in about 2 bytes per key: a
 * scalable blocked Bloom filter (layers of doubling capacity, each at 16 bits and 8 probes per key
 * in one 512-bit block, so a layer at capacity answers "maybe" for an unseen key about once in
 * 1,000). Written here rather
 * than taken from a library: it is 100 lines over a Uint32Array, and the packages that offer one
 * bring serialisers, counting and hashing variants this needs none of, and hash whole strings
 * where a key is hashed part by part without building one.
 */

const BITS_PER_KEY = 16;
const PROBES = 8;
const FIRST_CAPACITY = 1 << 15;

/** The hash of one key, fed part by part (cyrb53's mixing, two independent 32-bit lanes). */
export class KeyHash {
  #h1 = 0;
  #h2 = 0;

  /** Starts a new key. */
  reset(): this {
    this.#h1 = 0xdeadbeef;
    this.#h2 = 0x41c6ce57;
    return this;
  }

  /** Adds one part of the key (parts are told apart: "ab","c" is not "a","bc"). */
  feed(text: string): this {
    let h1 = this.#h1;
    let h2 = this.#h2;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ code, 2654435761);
      h2 = Math.imul(h2 ^ code, 1597334677);
    }
    this.#h1 = Math.imul(h1 ^ 0x1f, 2654435761);
    this.#h2 = Math.imul(h2 ^ 0x1f, 1597334677);
    return this;
  }

  /** The first hash of the key fed so far. */
  get first(): number {
    return (
      Math.imul(this.#h1 ^ (this.#h1 >>> 16), 2246822507) ^
      Math.imul(this.#h2 ^ (this.#h2 >>> 13), 3266489909)
    );
  }

  /** The second hash (odd, so its multiples cover every bit of a power-of-two filter). */
  get second(): number {
    return (
      (Math.imul(this.#h2 ^ (this.#h2 >>> 16), 2246822507) ^
        Math.imul(this.#h1 ^ (this.#h1 >>> 13), 3266489909)) |
      1
    );
  }
}

/** Bits of one block: a key's bits all lie in one 64-byte cache line. */
const BLOCK_BITS = 512;
const BLOCK_WORDS = BLOCK_BITS / 32;

/**
 * One fixed-size blocked Bloom filter: `first` picks a block, `second` seeds the bits set in it,
 * so a key costs one cache miss rather than one per bit.
 */
class Layer {
  readonly capacity: number;
  readonly #words: Uint32Array;
  readonly #blockMask: number;
  count = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
    const blocks = (capacity * BITS_PER_KEY) / BLOCK_BITS;
    this.#words = new Uint32Array(blocks * BLOCK_WORDS);
    this.#blockMask = blocks - 1;
  }

  /** Sets the key's bits; returns whether they were all set already. */
  add(first: number, second: number): boolean {
    const base = (first & this.#blockMask) * BLOCK_WORDS;
    let seed = second;
    let seen = true;
    for (let i = 0; i < PROBES; i++) {
      seed = Math.imul(seed, 0x9e3779b1) + i;
      const bit = seed >>> 23;
      const word = base + (bit >>> 5);
      const mask = 1 << (bit & 31);
      if ((this.#words[word]! & mask) === 0) {
        seen = false;
        this.#words[word]! |= mask;
      }
    }
    this.count++;
    return seen;
  }

  /** Whether every bit of the key is set. */
  has(first: number, second: number): boolean {
    const base = (first & this.#blockMask) * BLOCK_WORDS;
    let seed = second;
    for (let i = 0; i < PROBES; i++) {
      seed = Math.imul(seed, 0x9e3779b1) + i;
      const bit = seed >>> 23;
      if ((this.#words[base + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Keys added by their {@link KeyHash}; never forgets one, rarely claims one it was not given. */
export class KeyFilter {
  readonly #layers: Layer[] = [new Layer(FIRST_CAPACITY)];

  /** Remembers the key `hash` was fed; returns whether it may have been added before. */
  add(hash: KeyHash): boolean {
    const first = hash.first;
    const second = hash.second;
    let last = this.#layers[this.#layers.length - 1]!;
    if (last.count >= last.capacity) {
      last = new Layer(last.capacity * 2);
      this.#layers.push(last);
    }
    let seen = last.add(first, second);
    for (let i = 0; i < this.#layers.length - 1 && !seen; i++) seen = this.#layers[i]!.has(first, second);
    return seen;
  }
}
