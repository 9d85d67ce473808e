import type { ResourceName } from "@telecom-etl/platform/catalogue.js";
import { SCAFFOLDED_RESOURCE_NAMES } from "@telecom-etl/platform/scaffolded-resources.js";

/** The lists given row faults by hand (their corruptions in row-faults.ts). */
export const HAND_LIST_STREAMS = [
  "cdrs",
  "short_link_metrics",
  "invoices",
  "messages",
  "recordings",
] as const satisfies readonly ResourceName[];
/** A list whose corruptions are written by hand. */
export type HandListStream = (typeof HAND_LIST_STREAMS)[number];

/**
 * The sandbox's lists (`SANDBOX_LISTS`) whose rows get row faults and schema drift (seeded
 * corruptions in row-faults.ts, drift rules, truth `/malformed` lines). The ledgers, owned numbers
 * and trunks are paged lists too, but no fault rewrites their rows (a rewrite would read the
 * ledger's amounts through a float). A list added by `npm run scaffold:stream` is here by being
 * scaffolded, its corruptions derived from its item schema (faults/schema-corruptions.ts).
 */
export const LIST_STREAMS = [
  ...HAND_LIST_STREAMS,
  ...SCAFFOLDED_RESOURCE_NAMES,
] as const satisfies readonly ResourceName[];

/** A list stream: a catalogue resource served with row faults. */
export type ListStream = (typeof LIST_STREAMS)[number];

/** Whether a stream name is a list stream. */
export function isListStream(stream: string): stream is ListStream {
  return (LIST_STREAMS as readonly string[]).includes(stream);
}
