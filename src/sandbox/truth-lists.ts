import type { CdrType } from "../platform/cdr.js";
import type { RowIdentity } from "./faults/row-faults.js";
import type { ListStream } from "./list-streams.js";
import { selectMessages } from "./message-query.js";
import { selectRecordings } from "./recording-query.js";
import { selectInvoiceRows } from "./routes/invoice-routes.js";
import { selectShortLinkRows } from "./routes/short-link-routes.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { serializeMessage } from "./serialize-message.js";
import type { TruthQuery } from "./truth-query.js";
import { visibleCalls } from "./truth-records.js";

/** A record of a list stream as generated (before row faults), with its fault identity. */
export interface ListRow {
  readonly json: string;
  readonly identity: RowIdentity;
  /** A CDR's direction (the truth line carries it), else null. */
  readonly direction: CdrType | null;
}

/** A generated row before its identity is attached: JSON, day, index (and a CDR's direction). */
interface SourceRow {
  readonly json: string;
  readonly day: number;
  readonly index: number;
  readonly direction?: CdrType;
}

/** Every record of a list stream visible now in the query's range, as its list route generates it. */
type ListSource = (runtime: SandboxRuntime, query: TruthQuery, nowMs: number) => SourceRow[];

/**
 * The sandbox's list sources, one per list stream (`LIST_STREAMS`, catalogue names): the same
 * selections the list routes serve from, without request filters. The truth export reads a list
 * stream through this registry; a new list stream adds its source here.
 */
const LIST_SOURCES: Readonly<Record<ListStream, ListSource>> = {
  cdrs: (runtime, query) =>
    visibleCalls(runtime, query).map((call) => ({
      json: runtime.cdrs.serialize(call),
      day: Math.floor(call.startMs / DAY_MS),
      index: call.index,
      direction: call.direction,
    })),
  short_link_metrics: (runtime, query, nowMs) =>
    selectShortLinkRows({ runtime, account: query.account }, query.fromMs, query.toMs, nowMs, null, null),
  invoices: (runtime, query, nowMs) =>
    selectInvoiceRows({ runtime, account: query.account }, nowMs).filter(
      (r) => r.day * DAY_MS >= query.fromMs && r.day * DAY_MS <= query.toMs,
    ),
  messages: (runtime, query, nowMs) => {
    const filter = {
      account: query.account,
      direction: null,
      fromMs: query.fromMs,
      untilMs: query.toMs + DAY_MS,
      from: null,
      to: null,
      tag: null,
      status: null,
      type: null,
    };
    return selectMessages(runtime, filter, nowMs).map(({ message, day }) => ({
      json: serializeMessage(message, nowMs),
      day,
      index: message.index,
    }));
  },
  recordings: (runtime, query, nowMs) =>
    selectRecordings(runtime, query.account, query.fromMs, query.toMs + DAY_MS, nowMs),
};

/** Every record of list stream `stream` visible now, as generated (before row faults). */
export function listRows(runtime: SandboxRuntime, stream: ListStream, query: TruthQuery): ListRow[] {
  const account = query.account.index;
  return LIST_SOURCES[stream](runtime, query, runtime.clock.now()).map((row) => ({
    json: row.json,
    identity: { stream, account, day: row.day, index: row.index },
    direction: row.direction ?? null,
  }));
}
