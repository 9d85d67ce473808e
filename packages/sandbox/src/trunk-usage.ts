import type { CdrStore } from "./cdr-store.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxAccount } from "./world.js";

/** A trunk's outbound totals over some calls: talk time (seconds) and charge (micro-dollars). */
export interface TrunkTotals {
  readonly seconds: number;
  readonly micros: number;
}

/** Epoch ms of 00:00 UTC on the first day of the month of `ms`. */
export function monthStartMs(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/**
 * The month-to-date outbound totals of an account's trunks, as `GET /v1/trunks` reports them in
 * `talk_time` and `charge`: every placed CDR on the trunk (its `sip_trunk`) that started in the
 * clock's UTC month and that the CDR list shows at the clock (late CDRs count once visible), summing
 * `duration` and `charge`. Derived from the CDR store, so it is deterministic and agrees with the CDR
 * truth; a day whose every CDR is visible is totalled once and kept.
 */
export class TrunkUsage {
  /** Totals per seeded trunk of days whose every CDR is visible from `fromMs` on (the clock may go back). */
  private readonly settled = new Map<string, { readonly fromMs: number; readonly totals: TrunkTotals[] }>();

  constructor(private readonly cdrs: CdrStore) {}

  /** Month-to-date totals of each seeded trunk of the account (by index in `account.trunks`) at `nowMs`. */
  monthToDate(account: SandboxAccount, nowMs: number): TrunkTotals[] {
    const totals = account.trunks.map(() => ({ seconds: 0, micros: 0 }));
    const firstDay = Math.floor(monthStartMs(nowMs) / DAY_MS);
    const lastDay = Math.floor(nowMs / DAY_MS);
    for (let day = firstDay; day <= lastDay; day++) {
      if (this.cdrs.isEmpty(account, day)) continue;
      const dayTotals = this.dayTotals(account, day, nowMs);
      dayTotals.forEach((t, k) => {
        const into = totals[k];
        if (into === undefined) return;
        into.seconds += t.seconds;
        into.micros += t.micros;
      });
    }
    return totals;
  }

  /** One day's totals per seeded trunk (0-based) of the placed CDRs visible at `nowMs`. */
  private dayTotals(account: SandboxAccount, dayNumber: number, nowMs: number): TrunkTotals[] {
    const key = `${account.index}:${dayNumber}`;
    const known = this.settled.get(key);
    if (known !== undefined && known.fromMs <= nowMs) return known.totals;
    const rows = this.cdrs.day(account, dayNumber).placed;
    const totals = account.trunks.map(() => ({ seconds: 0, micros: 0 }));
    for (let i = 0; i < rows.count; i++) {
      const trunk = rows.trunk[i]!;
      if (trunk === 0 || rows.visibleAtMs[i]! > nowMs) continue;
      const into = totals[trunk - 1]!;
      into.seconds += rows.duration[i]!;
      into.micros += rows.chargeMicros[i]!;
    }
    // Calls started through the API carry no trunk: a day whose rows are all visible is final.
    if (rows.maxVisibleAtMs <= nowMs) this.settled.set(key, { fromMs: rows.maxVisibleAtMs, totals });
    return totals;
  }
}
