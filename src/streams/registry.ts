import type { KNOWN_STREAMS } from "../config.js";
import { UsageError } from "../errors.js";
import { cdrsStream } from "./cdrs.js";
import { invoicesStream } from "./invoices.js";
import { shortLinkMetricsStream } from "./short-link-metrics.js";
import type { StreamDefinition } from "./stream-definition.js";

/** A stream name the loader knows. */
export type StreamName = (typeof KNOWN_STREAMS)[number];

/** Every stream by name. Adding a stream: one file, one migration, one line here. */
export const STREAMS: Readonly<Record<StreamName, StreamDefinition>> = {
  cdrs: cdrsStream as StreamDefinition,
  short_link_metrics: shortLinkMetricsStream as StreamDefinition,
  invoices: invoicesStream as StreamDefinition,
};

/** The definition of stream `name`; an unknown name is a UsageError listing the known ones. */
export function getStream(name: string): StreamDefinition {
  const stream = (STREAMS as Readonly<Record<string, StreamDefinition>>)[name];
  if (!stream || !Object.hasOwn(STREAMS, name)) {
    throw new UsageError(`unknown stream ${JSON.stringify(name)}; known: ${Object.keys(STREAMS).join(", ")}`);
  }
  return stream;
}
