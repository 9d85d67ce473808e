import { UsageError } from "../core/errors.js";
import { brandAppealsStream } from "./brand-appeals.js";
import { callWebhooksStream } from "./call-webhooks.js";
import { cdrsStream } from "./cdrs.js";
import { invoicesStream } from "./invoices.js";
import { messagesStream } from "./messages.js";
import { numberCatalogStream } from "./number-catalog.js";
import { numbersStream } from "./numbers.js";
import { recordingsStream } from "./recordings.js";
import { SCAFFOLDED_STREAMS } from "./scaffolded-streams.js";
import { shortLinkMetricsStream } from "./short-link-metrics.js";
import { sipTrunksStream } from "./sip-trunks.js";
import type { StreamDefinition } from "./stream-definition.js";
import { subAccountsStream } from "./sub-accounts.js";
import { transactionsStream } from "./transactions.js";
import { transcriptionsStream } from "./transcriptions.js";
import { validationsStream } from "./validations.js";

/** Every stream by name, each with its precise type (its tables' declarations, for `PlatformTables`). */
const DECLARED_STREAMS = {
  cdrs: cdrsStream,
  short_link_metrics: shortLinkMetricsStream,
  invoices: invoicesStream,
  messages: messagesStream,
  sip_trunks: sipTrunksStream,
  numbers: numbersStream,
  call_webhooks: callWebhooksStream,
  brand_appeals: brandAppealsStream,
  sub_accounts: subAccountsStream,
  number_catalog: numberCatalogStream,
  transcriptions: transcriptionsStream,
  recordings: recordingsStream,
  validations: validationsStream,
  transactions: transactionsStream,
} as const;

/** The type of each registered stream as its file declares it (see `PlatformTables`). */
export type DeclaredStreams = typeof DECLARED_STREAMS;

/**
 * Every stream by name: the one list of streams. The config accepts exactly these names; a new
 * stream is added by `npm run scaffold:stream -- <name>` (scaffolded-streams.ts, generated), not
 * here (a test checks each key is its stream's own name).
 */
export const STREAMS: {
  readonly [Name in keyof DeclaredStreams | keyof typeof SCAFFOLDED_STREAMS]: StreamDefinition;
} = { ...DECLARED_STREAMS, ...SCAFFOLDED_STREAMS };

/** A stream name the loader knows. */
export type StreamName = keyof typeof STREAMS;

/** The names of every stream, in the registry's order. */
export const STREAM_NAMES = Object.keys(STREAMS) as readonly StreamName[];

/** Every stream's landing table by stream name (for counts in `status` and the demo). */
export function landingTables(): { stream: string; table: string }[] {
  return Object.values(STREAMS).map((s) => ({ stream: s.name, table: s.table.name }));
}

/** The kind each lookup stream tracks its ids under (for `status`). */
export function trackedKinds(): { stream: string; kind: string }[] {
  return Object.values(STREAMS).flatMap((s) =>
    s.lookup === undefined ? [] : [{ stream: s.name, kind: s.lookup.trackedKind }],
  );
}

/** The definition of stream `name`; an unknown name is a UsageError listing the known ones. */
export function getStream(name: string): StreamDefinition {
  const stream = (STREAMS as Readonly<Record<string, StreamDefinition>>)[name];
  if (!stream || !Object.hasOwn(STREAMS, name)) {
    throw new UsageError(`unknown stream ${JSON.stringify(name)}; known: ${Object.keys(STREAMS).join(", ")}`);
  }
  return stream;
}
