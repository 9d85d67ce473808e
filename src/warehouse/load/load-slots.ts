/**
 * How many window loads one process runs at once on a warehouse pool: all but two of the pool's
 * connections (one for a run's lock session, one for its records and sweeps). Loads beyond that
 * wait here, in order and without a deadline, instead of in the pool's queue, where a wait past
 * its connection timeout (10 s) fails the window: with hundreds of accounts finishing windows
 * together, a 10-connection pool would otherwise fail loads that only had to wait their turn.
 */
import pLimit, { type LimitFunction } from "p-limit";
import type pg from "pg";

/** Connections of a pool kept out of the load slots. */
const RESERVED_CONNECTIONS = 2;

const slotsByPool = new WeakMap<pg.Pool, LimitFunction>();

/** The load slots of `pool`: `max - 2` (at least 1) loads at once, shared by every run of the process. */
export function loadSlotsOf(pool: pg.Pool): LimitFunction {
  let slots = slotsByPool.get(pool);
  if (slots === undefined) {
    const max = (pool as pg.Pool & { options: { max?: number } }).options.max ?? 10;
    slots = pLimit(Math.max(1, max - RESERVED_CONNECTIONS));
    slotsByPool.set(pool, slots);
  }
  return slots;
}
