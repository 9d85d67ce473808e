import { isKept, type ServedRow } from "./faults/served-row.js";
import type { CdrCall } from "./generate-cdr-day.js";
import { type PageRow, rowIdentity } from "./routes/page-body.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import type { TruthQuery } from "./truth-query.js";
import type { SandboxAccount } from "./world.js";

/**
 * What of a call the platform shows at a clock, one rule for every route and every truth export:
 *
 * - a call exists for the API from its CDR's `visibleAtMs` on (its end + 1–60 s; a late CDR's
 *   1–48 h later): its CDR in the list and by id, its recording (list and by id), its
 *   transcription (404 before; then 202 until ready), its ledger lines (never before the CDR);
 * - its CDR row is served the same on every route (the list, `GET /v1/cdr/{uuid}`) and in the
 *   truth export: the fault profile's change of the row depends only on its identity (account,
 *   the day holding it, index);
 * - a loader holds a call when its CDR is visible and its served row is valid; what a loader can
 *   only reach through the call's id (its transcription) is in the truth for held calls only,
 *   while what has a list of its own (its recording, its ledger lines) is in the truth whatever
 *   its CDR row looks like (a rejected CDR is then described by the CDR truth's `/malformed`).
 */

/** The call's CDR list row, with its fault identity (the day holding it and its index), direction and id. */
export function cdrRowOf(runtime: SandboxRuntime, call: CdrCall): PageRow {
  return {
    json: runtime.cdrs.serialize(call),
    day: call.dayNumber,
    index: call.index,
    direction: call.direction,
    id: call.uuid,
  };
}

/** The call's CDR as every route serves it under the fault profile (and as the truth sees it). */
export function servedCdr(runtime: SandboxRuntime, account: SandboxAccount, call: CdrCall): ServedRow {
  const row = cdrRowOf(runtime, call);
  return runtime.faults.serve(rowIdentity("cdrs", account, row), row.json);
}

/** Every call of the query's range whose CDR is visible at its clock (both directions, generated and API-started). */
export function visibleCalls(runtime: SandboxRuntime, query: TruthQuery): CdrCall[] {
  const { nowMs } = query;
  const calls: CdrCall[] = [];
  for (let day = query.fromMs / DAY_MS; day <= query.toMs / DAY_MS && day * DAY_MS <= nowMs; day++) {
    if (runtime.cdrs.isEmpty(query.account, day)) continue;
    for (const call of runtime.cdrs.calls(query.account, day))
      if (call.visibleAtMs <= nowMs) calls.push(call);
  }
  return calls;
}

/** The calls of the CDR truth: visible at the query's clock, their served CDR row valid (a loader keeps it). */
export function heldCalls(runtime: SandboxRuntime, query: TruthQuery): CdrCall[] {
  return visibleCalls(runtime, query).filter((call) =>
    isKept("cdrs", servedCdr(runtime, query.account, call)),
  );
}
