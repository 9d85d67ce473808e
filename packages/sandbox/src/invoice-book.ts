import type { CdrStore } from "./cdr-store.js";
import type { MessageStore } from "./message-store.js";
import { formatMicros } from "./money.js";
import { unitHash } from "./prng.js";
import { DAY_MS, formatDay } from "./sandbox-options.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

/** What one month cost an account, by kind (micro-dollars). */
export interface MonthCharges {
  readonly callMicros: number;
  readonly forwardMicros: number;
  readonly transcriptionMicros: number;
  readonly validationMicros: number;
  /** Final charges plus carrier fees of the messages submitted in the month (both directions). */
  readonly messageMicros: number;
  readonly numberFeesMicros: number;
  readonly totalMicros: number;
}

/** A monthly invoice of an account. */
export interface SandboxInvoice {
  readonly id: number;
  readonly account: string;
  /** `YYYY-MM`. */
  readonly month: string;
  readonly fromDate: string;
  readonly toDate: string;
  /** Visible from 00:00 UTC on the first day of the next month. */
  readonly issuedAtMs: number;
  /** True when the world deliberately bills an amount different from the month's charges. */
  readonly discrepancy: boolean;
  /** Amount billed minus the month's charges (0 unless `discrepancy`). */
  readonly deltaMicros: number;
}

/** A calendar month the world touches. */
export interface Month {
  readonly key: string;
  readonly fromMs: number;
  readonly nextMs: number;
}

/** The calendar months the world's days touch, oldest first. */
export function monthsOf(world: SandboxWorld): Month[] {
  const months: Month[] = [];
  const first = new Date(world.startMs);
  let year = first.getUTCFullYear();
  let month = first.getUTCMonth();
  for (;;) {
    const fromMs = Date.UTC(year, month, 1);
    if (fromMs >= world.endMs) break;
    const nextMs = Date.UTC(year, month + 1, 1);
    months.push({ key: formatDay(fromMs).slice(0, 7), fromMs, nextMs });
    month += 1;
    if (month === 12) [year, month] = [year + 1, 0];
  }
  return months;
}

/**
 * The invoices of the world: one per account per calendar month touched by the world, billing
 * exactly that month's charges (calls, PSTN forwarding, transcriptions, validations, messages,
 * number monthly fees), except a seeded ~20% whose amount is off by up to $25 (the discrepancies).
 * A month's messages are billed at their final charges (and carrier fees), even those not final
 * when the invoice is issued, as its calls include the CDRs that arrive late.
 */
export class InvoiceBook {
  private readonly months: Month[];
  private readonly chargesCache = new Map<string, MonthCharges>();
  private cacheVersion = 0;
  readonly invoices: readonly SandboxInvoice[];

  constructor(
    private readonly world: SandboxWorld,
    private readonly store: CdrStore,
    private readonly messages: MessageStore,
  ) {
    this.months = monthsOf(world);
    const invoices: SandboxInvoice[] = [];
    for (const account of world.accounts) {
      for (const month of this.months) {
        const coin = unitHash(world.seed, "invoice-discrepancy", account.index, month.key);
        const discrepancy = coin < 0.2;
        const sign = unitHash(world.seed, "invoice-sign", account.index, month.key) < 0.5 ? -1 : 1;
        const cents = 1 + Math.floor(unitHash(world.seed, "invoice-delta", account.index, month.key) * 2500);
        invoices.push({
          id:
            700_000 +
            account.index * 1000 +
            ((new Date(month.fromMs).getUTCFullYear() - 2000) * 12 + new Date(month.fromMs).getUTCMonth()),
          account: account.name,
          month: month.key,
          fromDate: formatDay(month.fromMs),
          toDate: formatDay(month.nextMs - DAY_MS),
          issuedAtMs: month.nextMs,
          discrepancy,
          deltaMicros: discrepancy ? sign * cents * 10_000 : 0,
        });
      }
    }
    if (!invoices.some((i) => i.discrepancy) && invoices[0]) {
      invoices[0] = { ...invoices[0], discrepancy: true, deltaMicros: 1_230_000 };
    }
    this.invoices = invoices;
  }

  /** The month's charges of an account (generates every day of the month once). */
  monthCharges(account: SandboxAccount, monthKey: string): MonthCharges {
    if (this.cacheVersion !== this.store.version) {
      this.chargesCache.clear();
      this.cacheVersion = this.store.version;
    }
    const cacheKey = `${account.index}:${monthKey}`;
    const known = this.chargesCache.get(cacheKey);
    if (known) return known;
    const month = this.months.find((m) => m.key === monthKey);
    if (!month) throw new Error(`month ${monthKey} is outside the world`);
    let callMicros = 0;
    let forwardMicros = 0;
    let transcriptionMicros = 0;
    let messageMicros = 0;
    const firstDay = Math.max(month.fromMs, this.world.startMs) / DAY_MS;
    const lastDay = Math.min(month.nextMs, this.world.endMs) / DAY_MS;
    for (let day = firstDay; day < lastDay; day++) {
      const c = this.store.dayCharges(account, day);
      callMicros += c.callMicros;
      forwardMicros += c.forwardMicros;
      transcriptionMicros += c.transcriptionMicros;
      messageMicros += this.messages.dayCostMicros(account, day);
    }
    let validationMicros = 0;
    for (const v of account.validations) {
      if (v.createdAtMs >= month.fromMs && v.createdAtMs < month.nextMs)
        validationMicros += v.count * v.perNumberMicros;
    }
    let numberFeesMicros = 0;
    for (const did of account.dids) if (did.addedMs < month.nextMs) numberFeesMicros += did.monthlyFeeMicros;
    const totalMicros =
      callMicros + forwardMicros + transcriptionMicros + validationMicros + messageMicros + numberFeesMicros;
    const charges = {
      callMicros,
      forwardMicros,
      transcriptionMicros,
      validationMicros,
      messageMicros,
      numberFeesMicros,
      totalMicros,
    };
    this.chargesCache.set(cacheKey, charges);
    return charges;
  }

  /** The account's invoices issued at `nowMs`, newest first (the serving order). */
  issued(account: SandboxAccount, nowMs: number): SandboxInvoice[] {
    return this.invoices
      .filter((i) => i.account === account.name && i.issuedAtMs <= nowMs)
      .sort((a, b) => (a.fromDate < b.fromDate ? 1 : -1));
  }

  /** The JSON of an invoice as the API serves it. */
  serialize(account: SandboxAccount, invoice: SandboxInvoice): string {
    const amount = this.monthCharges(account, invoice.month).totalMicros + invoice.deltaMicros;
    return JSON.stringify({
      id: invoice.id,
      from_date: invoice.fromDate,
      to_date: invoice.toDate,
      amount: formatMicros(amount),
    });
  }
}
