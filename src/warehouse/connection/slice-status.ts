/**
 * How a slice ended: loaded (`succeeded`); read but held (`held`: the read looked wrong, too many
 * rejects, a shrink, a drift or missing charges, see `hold_reason`: nothing of the window changed
 * and it stays open), not loaded (`failed`), or not read because the key lacks the stream's
 * permission (`skipped`).
 */
export const SLICE_STATUSES = ["succeeded", "held", "failed", "skipped"] as const;
/** Status of an `etl.run_slices` row (the generated Kysely types take it from here). */
export type SliceStatus = (typeof SLICE_STATUSES)[number];
