import type { ResourceName } from "@telecom-etl/platform/catalogue.js";
import { ledgerList } from "./ledger-list.js";
import { selectMessages } from "./message-query.js";
import { selectRecordings } from "./recording-query.js";
import { arraySource, type PageRow } from "./routes/page-body.js";
import { defineSandboxList, type ListAsk, type SandboxList } from "./sandbox-list.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { SCAFFOLDED_LISTS } from "./scaffolded-lists.js";
import { serializeMessage } from "./serialize-message.js";
import { cdrRowOf, visibleCalls } from "./served-calls.js";
import { shortLinkList } from "./short-link-list.js";
import type { TruthQuery } from "./truth-query.js";

/** The ask's window as the truth's inclusive day range (open ends: the whole world). */
function truthQueryOf(ask: ListAsk): TruthQuery {
  const { world } = ask.runtime;
  return {
    account: ask.account,
    fromMs: ask.fromMs ?? world.startMs,
    toMs: (ask.untilMs ?? world.endMs) - DAY_MS,
    nowMs: ask.nowMs,
  };
}

/**
 * The sandbox's lists, one declaration each, under the catalogue's resource names: the one place a
 * new list is added. A `generic` list is served by the windowed-list route (no route file), and
 * every list with `truth` is in the truth export under its name, its rows exactly as its route
 * serves them (row faults: `LIST_STREAMS`). A scaffolded list (`npm run scaffold:stream`) is added by
 * the generated scaffolded-lists.ts. The `own` ones keep a route file for filters the
 * generic route does not know; their `select` here is what the truth reads (no filter).
 */
export const SANDBOX_LISTS = {
  cdrs: defineSandboxList({
    route: "own",
    window: "required",
    truth: true,
    select: (ask) =>
      arraySource(visibleCalls(ask.runtime, truthQueryOf(ask)).map((call) => cdrRowOf(ask.runtime, call))),
  }),
  short_link_metrics: shortLinkList,
  invoices: defineSandboxList({
    route: "own",
    window: "optional",
    truth: true,
    select: ({ runtime, account, fromMs, untilMs, nowMs }) =>
      arraySource(
        runtime.invoices
          .issued(account, nowMs)
          .map(
            (invoice): PageRow => ({
              json: runtime.invoices.serialize(account, invoice),
              day: Date.parse(`${invoice.fromDate}T00:00:00Z`) / DAY_MS,
              index: invoice.id,
            }),
          )
          .filter((r) => r.day * DAY_MS >= (fromMs ?? -Infinity) && r.day * DAY_MS < (untilMs ?? Infinity)),
      ),
  }),
  messages: defineSandboxList({
    route: "own",
    window: "optional",
    truth: true,
    select: ({ runtime, account, fromMs, untilMs, nowMs }) => {
      const filter = {
        account,
        direction: null,
        fromMs: fromMs ?? runtime.world.startMs,
        untilMs: untilMs ?? Number.POSITIVE_INFINITY,
        from: null,
        to: null,
        tag: null,
        status: null,
        type: null,
      };
      return arraySource(
        selectMessages(runtime, filter, nowMs).map(({ message, day }) => ({
          json: serializeMessage(message, nowMs),
          day,
          index: message.index,
          id: message.id,
        })),
      );
    },
  }),
  recordings: defineSandboxList({
    route: "own",
    window: "optional",
    truth: true,
    select: ({ runtime, account, fromMs, untilMs, nowMs }) =>
      arraySource(
        selectRecordings(runtime, account, fromMs ?? runtime.world.startMs, untilMs ?? nowMs + 1, nowMs),
      ),
  }),
  transactions: ledgerList(true),
  sub_account_transactions: ledgerList(false),
  ...SCAFFOLDED_LISTS,
} as const satisfies Partial<Readonly<Record<ResourceName, SandboxList>>>;

/** A list the sandbox serves (a catalogue resource name). */
export type SandboxListName = keyof typeof SANDBOX_LISTS;

/** The lists whose truth the export lists under their own name. */
export const TRUTH_LISTS = (Object.keys(SANDBOX_LISTS) as SandboxListName[]).filter(
  (name) => SANDBOX_LISTS[name].truth,
);

/** Every row of list `name` for the account in the truth query's day range, visible now, unfiltered, in serving order. */
export function listRows(runtime: SandboxRuntime, name: SandboxListName, query: TruthQuery): PageRow[] {
  const source = SANDBOX_LISTS[name].select({
    runtime,
    account: query.account,
    fromMs: query.fromMs,
    untilMs: query.toMs + DAY_MS,
    nowMs: query.nowMs,
    query: null,
  });
  return Array.from({ length: source.total }, (_, i) => source.row(i));
}
