import type { CdrDispositionFilter, CdrType } from "../platform/cdr.js";
import type { CdrStore, ServedCdr } from "./cdr-store.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxAccount } from "./world.js";

/** The filters of `GET /v1/cdr`. Dates are epoch ms of UTC midnights, both inclusive. */
export interface CdrFilter {
  readonly account: SandboxAccount;
  readonly type: CdrType;
  readonly fromMs: number;
  readonly toMs: number;
  readonly disposition: CdrDispositionFilter;
  readonly fromSearch: string | null;
  readonly toSearch: string | null;
  readonly sipTrunk: string | null;
  readonly uuid: string | null;
}

interface CachedSelection {
  readonly rows: readonly ServedCdr[];
  readonly computedAtMs: number;
  /** The selection changes when the clock reaches this (the next hidden row becoming visible). */
  readonly validUntilMs: number;
}

const MAX_CACHED = 16;

/**
 * Selects the CDRs a list request covers at a given sandbox time, in serving order: by day, then
 * `date`, then `uuid`. The last few selections are cached (paging a window re-selects it for every
 * page) and stay valid until the clock reaches the next hidden row's visibility time.
 */
export class CdrQuery {
  private readonly cache = new Map<string, CachedSelection>();

  constructor(private readonly store: CdrStore) {}

  /** Every row matching `filter` visible at `nowMs`. */
  select(filter: CdrFilter, nowMs: number): readonly ServedCdr[] {
    const key = [
      this.store.version,
      filter.account.index,
      filter.type,
      filter.fromMs,
      filter.toMs,
      filter.disposition,
      filter.fromSearch,
      filter.toSearch,
      filter.type === "placed" ? filter.sipTrunk : null,
      filter.uuid,
    ].join("|");
    const hit = this.cache.get(key);
    if (hit && hit.computedAtMs <= nowMs && nowMs < hit.validUntilMs) return hit.rows;
    const rows: ServedCdr[] = [];
    let validUntilMs = Number.POSITIVE_INFINITY;
    const firstDay = filter.fromMs / DAY_MS;
    const lastDay = filter.toMs / DAY_MS;
    const trunk = filter.type === "placed" ? filter.sipTrunk : null;
    for (let day = firstDay; day <= lastDay; day++) {
      if (day * DAY_MS > nowMs) {
        validUntilMs = Math.min(validUntilMs, day * DAY_MS);
        break;
      }
      if (this.store.isEmpty(filter.account, day)) continue;
      const dayRows = this.store.rows(filter.account, day, filter.type);
      const plain =
        filter.disposition === "all" && !filter.fromSearch && !filter.toSearch && !trunk && !filter.uuid;
      if (plain && this.store.day(filter.account, day).maxVisibleAtMs <= nowMs) {
        for (const row of dayRows) rows.push(row);
        continue;
      }
      for (const row of dayRows) {
        const call = row.call;
        if (call.visibleAtMs > nowMs) {
          if (call.visibleAtMs < validUntilMs) validUntilMs = call.visibleAtMs;
          continue;
        }
        if (filter.disposition !== "all" && call.disposition !== filter.disposition) continue;
        if (filter.fromSearch && !call.from.includes(filter.fromSearch)) continue;
        if (filter.toSearch && !call.to.includes(filter.toSearch)) continue;
        if (trunk && call.sipTrunk !== trunk) continue;
        if (filter.uuid && call.uuid !== filter.uuid) continue;
        rows.push(row);
      }
    }
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.delete(key);
    this.cache.set(key, { rows, computedAtMs: nowMs, validUntilMs });
    return rows;
  }
}
