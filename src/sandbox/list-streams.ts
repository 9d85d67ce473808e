import type { ResourceName } from "../platform/catalogue.js";

/**
 * The sandbox's lists (`SANDBOX_LISTS`) whose rows get row faults and schema drift (seeded
 * corruptions in row-faults.ts, drift rules, truth `/malformed` lines). The ledgers, owned numbers
 * and trunks are paged lists too, but no fault rewrites their rows (a rewrite would read the
 * ledger's amounts through a float). A new list works without being here; adding it (with its
 * corruptions) makes the hostile fault profiles reach it.
 */
export const LIST_STREAMS = [
  "cdrs",
  "short_link_metrics",
  "invoices",
  "messages",
  "recordings",
] as const satisfies readonly ResourceName[];

/** A list stream: a catalogue resource served with row faults. */
export type ListStream = (typeof LIST_STREAMS)[number];

/** Whether a stream name is a list stream. */
export function isListStream(stream: string): stream is ListStream {
  return (LIST_STREAMS as readonly string[]).includes(stream);
}
