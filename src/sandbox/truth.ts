import { CDR_TYPES } from "../platform/cdr.js";
import { selectInvoiceRows } from "./routes/invoice-routes.js";
import { selectShortLinkRows } from "./routes/short-link-routes.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { appendJsonField, formatCdrDate } from "./serialize-cdr.js";
import type { SandboxAccount } from "./world.js";

/** Streams the truth export knows. */
export const TRUTH_STREAMS = ["cdrs", "short_link_metrics", "invoices"] as const;
/** A truth stream. */
export type TruthStream = (typeof TRUTH_STREAMS)[number];

/** A truth query: one account, inclusive UTC day range as epoch ms. */
export interface TruthQuery {
  readonly account: SandboxAccount;
  readonly fromMs: number;
  readonly toMs: number;
}

/**
 * The JSON lines a perfect loader holds for `stream` at the current clock: every visible record,
 * byte for byte as the API serves it; CDR lines carry an extra `direction` (`placed`/`received`).
 * Order is not meaningful.
 */
export function truthLines(runtime: SandboxRuntime, stream: TruthStream, query: TruthQuery): string[] {
  const nowMs = runtime.clock.now();
  const context = { runtime, account: query.account };
  switch (stream) {
    case "cdrs": {
      const lines: string[] = [];
      for (const type of CDR_TYPES) {
        const rows = runtime.cdrQuery.select(
          {
            account: query.account,
            type,
            fromMs: query.fromMs,
            toMs: query.toMs,
            disposition: "all",
            fromSearch: null,
            toSearch: null,
            sipTrunk: null,
            uuid: null,
          },
          nowMs,
        );
        for (const row of rows) lines.push(appendJsonField(row.json, "direction", type));
      }
      return lines;
    }
    case "short_link_metrics":
      return selectShortLinkRows(context, query.fromMs, query.toMs, nowMs, null, null).map((row) => row.json);
    case "invoices":
      return selectInvoiceRows(context, nowMs)
        .filter((row) => row.day * 86_400_000 >= query.fromMs && row.day * 86_400_000 <= query.toMs)
        .map((row) => row.json);
  }
}

/**
 * CDRs of the range that arrive late (visible 1 h to 48 h after the call), visible yet or not:
 * the served JSON plus `direction`, `visible_at` and `visible` (at the current clock).
 */
export function lateCdrLines(runtime: SandboxRuntime, query: TruthQuery): string[] {
  const nowMs = runtime.clock.now();
  const { world } = runtime;
  const lines: string[] = [];
  const firstDay = Math.max(query.fromMs, world.startMs) / 86_400_000;
  const lastDay = Math.min(query.toMs, world.endMs - 86_400_000) / 86_400_000;
  for (let day = firstDay; day <= lastDay; day++) {
    const cdrDay = runtime.cdrs.day(query.account, day);
    for (const type of CDR_TYPES) {
      for (const row of type === "placed" ? cdrDay.placed : cdrDay.received) {
        if (!row.call.late) continue;
        let line = appendJsonField(row.json, "direction", type);
        line = appendJsonField(line, "visible_at", formatCdrDate(row.call.visibleAtMs));
        lines.push(appendJsonField(line, "visible", row.call.visibleAtMs <= nowMs));
      }
    }
  }
  return lines;
}
