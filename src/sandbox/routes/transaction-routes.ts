import { CATALOGUE } from "../../platform/catalogue.js";
import {
  booleanParam,
  notFound,
  optionalText,
  ParamError,
  rawJson,
  type SandboxResponse,
} from "../http/http-kit.js";
import { optionalWindow } from "../http/list-window.js";
import { readPaging } from "../http/paging.js";
import { LedgerBook, type ListedLine } from "../ledger-book.js";
import { DAY_MS } from "../sandbox-options.js";
import type { SandboxAccount } from "../world.js";
import { catalogueHandlers, idAt, type PathId } from "./catalogue-routes.js";
import { listShapeOf, type PageRow, type RowSource, servePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** What a ledger request filters on (`details_contains` and `payments` only on the account's own ledger). */
export interface LedgerFilter {
  readonly fromDay: number;
  readonly toDay: number;
  readonly type: number | null;
  readonly detailsContains: string | null;
  readonly paymentsOnly: boolean;
}

/** Types `payments=true` keeps: the top-ups (credit card, admin and subscription payments). */
const PAYMENT_TYPES: readonly number[] = [19, 25, 26];

/** The ledger lines of `account` visible at `nowMs` that pass `filter`, in ledger order. */
export function selectLedgerLines(
  context: Pick<RouteContext, "runtime">,
  account: SandboxAccount,
  filter: LedgerFilter,
  nowMs: number,
): ListedLine[] {
  return context.runtime.ledger
    .listed(account, filter.fromDay, filter.toDay, nowMs)
    .filter(
      ({ line }) =>
        (filter.type === null || line.type === filter.type) &&
        (!filter.paymentsOnly || PAYMENT_TYPES.includes(line.type)) &&
        (filter.detailsContains === null || line.details.includes(filter.detailsContains)),
    );
}

const OWN = CATALOGUE.transactions;
const OF_SUB_ACCOUNT = CATALOGUE.sub_account_transactions;

/** The filter of a ledger request; the window's names come from the catalogue (both ledgers name it alike). */
function readFilter(context: RouteContext, own: boolean): LedgerFilter {
  const { query } = context.request;
  const window = optionalWindow(query, (own ? OWN : OF_SUB_ACCOUNT).window);
  const typeText = optionalText(query, "type");
  if (typeText !== null && !/^\d+$/.test(typeText)) throw new ParamError(422, "type");
  return {
    fromDay: window.fromMs === null ? Number.NEGATIVE_INFINITY : window.fromMs / DAY_MS,
    // A reversed window lists nothing (no 422 here, unlike the CDR list).
    toDay: window.untilMs === null ? Number.POSITIVE_INFINITY : window.untilMs / DAY_MS - 1,
    type: typeText === null ? null : Number(typeText),
    detailsContains: own ? optionalText(query, "details_contains") : null,
    paymentsOnly: own ? booleanParam(query, "payments", false) : false,
  };
}

/** A page source over listed lines that writes only the rows a page serves (a busy day has 50,000 lines). */
function ledgerSource(lines: readonly ListedLine[]): RowSource {
  const row = (i: number): PageRow => {
    const listed = lines[i]!;
    return {
      json: LedgerBook.serialize(listed),
      day: Math.floor(listed.line.atMs / DAY_MS),
      index: Number(listed.line.id % 1_000_000n),
    };
  };
  return {
    total: lines.length,
    row,
    chunks: (start, end) => [
      Buffer.from(lines.slice(start, end).map(LedgerBook.serialize).join(","), "latin1"),
    ],
  };
}

function serveLedger(context: RouteContext, account: SandboxAccount, own: boolean): SandboxResponse {
  const paging = readPaging(context.request.query, context.runtime.options.maxPerPage);
  const filter = readFilter(context, own);
  const lines = selectLedgerLines(context, account, filter, context.runtime.clock.now());
  // No row faults: a fault rewriting a row would go through a float and change the amounts.
  const shape = listShapeOf(own ? OWN : OF_SUB_ACCOUNT, null);
  return rawJson(200, servePage(context, shape, ledgerSource(lines), paging));
}

/** `GET /v1/billing/transactions`: the caller's own ledger. */
function listOwnTransactions(context: RouteContext): SandboxResponse {
  return serveLedger(context, context.account, true);
}

/** `GET /v1/sub-organizations/{id}/billing/transactions`: a sub-account's ledger (the master sees its subs, a sub itself). */
function listSubAccountTransactions(context: RouteContext, ids: readonly PathId[]): SandboxResponse {
  const raw = idAt(ids, 0).value;
  if (!/^\d+$/.test(raw)) throw new ParamError(400, "id");
  const target = context.runtime.world.accounts.find((a) => a.id === Number(raw) && a.role === "sub");
  if (!target) return notFound();
  if (context.account.role !== "master" && context.account.index !== target.index) return notFound();
  return serveLedger(context, target, false);
}

/** Billing ledger routes (the same in both API revisions). */
export const transactionRoutes: readonly PlatformHandler[] = [
  ...catalogueHandlers(OWN, listOwnTransactions),
  ...catalogueHandlers(OF_SUB_ACCOUNT, listSubAccountTransactions),
];
