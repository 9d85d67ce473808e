/**
 * The most recently used generated days of the sandbox (CDRs, messages, ledger lines), keyed by
 * account and day, bounded by the rows they hold: a day read again moves to the back, and the
 * oldest days are evicted once the rows exceed the bound (never the day just added).
 */
export class BoundedDayCache<Day> {
  readonly #days = new Map<string, Day>();
  #rows = 0;

  /** `rowsOf` counts a day's rows; `onEvict` receives an evicted or removed day (to recycle its buffers). */
  constructor(
    private readonly maxRows: number,
    private readonly rowsOf: (day: Day) => number,
    private readonly onEvict: (day: Day) => void = () => {},
  ) {}

  /** The cached day of `key`, now the most recently used, or undefined. */
  get(key: string): Day | undefined {
    const hit = this.#days.get(key);
    if (hit !== undefined) {
      this.#days.delete(key);
      this.#days.set(key, hit);
    }
    return hit;
  }

  /** Caches `day` under `key`, then evicts the least recently used days beyond the bound. */
  set(key: string, day: Day): void {
    this.#days.set(key, day);
    this.#rows += this.rowsOf(day);
    for (const oldKey of this.#days.keys()) {
      if (this.#rows <= this.maxRows || oldKey === key) break;
      this.delete(oldKey);
    }
  }

  /** Removes the day of `key` (it changed), if cached. */
  delete(key: string): void {
    const day = this.#days.get(key);
    if (day === undefined) return;
    this.#days.delete(key);
    this.#rows -= this.rowsOf(day);
    this.onEvict(day);
  }

  /** Empties the cache. */
  clear(): void {
    for (const key of [...this.#days.keys()]) this.delete(key);
  }

  /** Rows currently cached. */
  get rows(): number {
    return this.#rows;
  }
}
