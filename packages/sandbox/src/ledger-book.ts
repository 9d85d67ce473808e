import { BoundedDayCache } from "./bounded-day-cache.js";
import type { CdrStore } from "./cdr-store.js";
import { type Month, monthsOf } from "./invoice-book.js";
import { formatUnits, unitsOfText } from "./ledger-decimal.js";
import type { MessageStore } from "./message-store.js";
import { formatMicros } from "./money.js";
import { unitHash } from "./prng.js";
import { DAY_MS } from "./sandbox-options.js";
import { formatCdrDate } from "./serialize-cdr.js";
import { isWorldDay, type SandboxAccount, type SandboxWorld } from "./world.js";

/** Status of a ledger line as the platform names it. */
export type LedgerStatus = "Pending" | "Committed" | "Reverted";

/** One line of an account's billing ledger, before serialization. */
export interface LedgerLine {
  /** int64: most ids are far below 2^53, one seeded line's id is above it. */
  readonly id: bigint;
  /** The line's `date` (the usage's time, so it falls in the same day and month as the usage). */
  readonly atMs: number;
  /** Listed from then on (a late CDR's charge with the CDR, a message's once it is final). */
  readonly visibleAtMs: number;
  /** The `amount` exactly as written in the JSON body (a JSON number). */
  readonly amountText: string;
  readonly amountUnits: bigint;
  readonly type: number;
  readonly details: string;
  /** Reverted lines never change the balance; others are Pending for an hour after they appear. */
  readonly reverted: boolean;
  readonly showInvoice: boolean;
  /** Usage the line bills, for the invoice reconciliation (null: a line with no usage behind it). */
  readonly product: LedgerProduct | null;
}

/** The invoice book's kinds of charges a ledger line can bill (see invoice-book.ts MonthCharges). */
export type LedgerProduct =
  | "calls"
  | "forward"
  | "transcriptions"
  | "validations"
  | "messages"
  | "number_fees";

/** A line as listed at a clock: with its running balance and status. */
export interface ListedLine {
  readonly line: LedgerLine;
  readonly balanceUnits: bigint;
  readonly status: LedgerStatus;
}

/** How long a line stays `Pending` after it appears. */
export const PENDING_MS = 3_600_000;

/** Opening balance of every ledger on the world's first day, before its first top-up. */
const OPENING_UNITS = unitsOfText("25.00");

/** Message line types: segments (57-60) and carrier fees (52-55), by type and direction. */
const MESSAGE_TYPES = {
  sms: { outbound: { charge: 57, fee: 52 }, inbound: { charge: 58, fee: 53 } },
  mms: { outbound: { charge: 59, fee: 54 }, inbound: { charge: 60, fee: 55 } },
} as const;

/**
 * Lines with no usage behind them, on fixed days of the world (clamped to its last day): the exact
 * number edge cases (`-0.1`, `309.0601`, `1e-7`, 17 significant digits), 10DLC fees (which no usage
 * stream shows), a type code the documentation does not list, an int64 id above 2^53, and a
 * reverted one.
 */
const SEEDED = [
  { day: 0, type: 0, amount: "-0.1", details: "Payment adjustment", reverted: false },
  { day: 0, type: 42, amount: "-4.00", details: "10DLC brand registration", reverted: false },
  { day: 1, type: 45, amount: "309.0601", details: "Adjustment in: credit note", reverted: false },
  { day: 1, type: 43, amount: "-15.00", details: "10DLC campaign registration", reverted: false },
  { day: 2, type: 45, amount: "1e-7", details: "Adjustment in: rounding", reverted: false },
  { day: 2, type: 0, amount: "-12.345678901234567", details: "Payment adjustment", reverted: false },
  {
    day: 3,
    type: 99,
    amount: "-0.50",
    details: "A product the documentation does not list",
    reverted: false,
  },
  { day: 3, type: 45, amount: "7.25", details: "Adjustment in (reverted)", reverted: true },
] as const;

/** The seeded line whose id is above 2^53 (a float would change it). */
const BIG_ID_BASE = 9_007_199_254_740_993n;

/** Ledger lines kept in the day cache (a line is ~0.3 KB). */
const MAX_CACHED_LINES = 200_000;

/** Top-ups (type 19, credit card payment) every `TOP_UP_EVERY` days from the first. */
const TOP_UP_EVERY = 7;
const TOP_UP_AMOUNTS = ["100.00", "250.00", "500.00"] as const;

/**
 * The billing ledger of every account, consistent with the usage the sandbox serves: one line per
 * call charge (type 14 placed, 6 received: the forwarding of an inbound call), PSTN forwarding fee
 * (11) and transcription (41); per message its segments (57-60) and, when delivered, its carrier fee
 * (52-55); validations (29); number monthly fees (3, one per number and month, on the month's first
 * world day); top-ups (19); plus the seeded lines above and, every fifth day, a reverted duplicate of
 * the day's first call charge. Per product and month the committed usage lines equal the invoice
 * book's charges. `balance_after` is the running balance in (date, id) order from an opening
 * balance; reverted lines leave it unchanged. Only the world's days have lines.
 */
export class LedgerBook {
  private readonly months: Month[];
  /** Closing balance of (account, day), computed in order from the world's first day. */
  private readonly closing = new Map<string, bigint>();
  private closingVersion = 0;
  /** Recently used days' lines (an LRU bounded by line count): every page of a day needs them. */
  private readonly days = new BoundedDayCache<LedgerLine[]>(MAX_CACHED_LINES, (lines) => lines.length);
  private daysVersion = 0;

  constructor(
    private readonly world: SandboxWorld,
    private readonly store: CdrStore,
    private readonly messages: MessageStore,
  ) {
    this.months = monthsOf(world);
  }

  /** Every line of (account, day), visible or not, in ledger order (date, then id); cached. */
  dayLines(account: SandboxAccount, dayNumber: number): readonly LedgerLine[] {
    if (this.daysVersion !== this.store.version) {
      this.days.clear();
      this.daysVersion = this.store.version;
    }
    const key = `${account.index}:${dayNumber}`;
    const hit = this.days.get(key);
    if (hit) return hit;
    const lines = this.generateDay(account, dayNumber);
    this.days.set(key, lines);
    return lines;
  }

  /** Generates the lines of (account, day) from the usage the sandbox serves. */
  private generateDay(account: SandboxAccount, dayNumber: number): LedgerLine[] {
    if (!isWorldDay(this.world, dayNumber)) return [];
    const base = BigInt(account.index + 1) * 1_000_000_000_000n + BigInt(dayNumber) * 1_000_000n;
    const lines: LedgerLine[] = [];
    const add = (line: Omit<LedgerLine, "id" | "amountUnits">, id?: bigint) => {
      lines.push({
        ...line,
        id: id ?? base + BigInt(lines.length),
        amountUnits: unitsOfText(line.amountText),
      });
    };
    const charge = (micros: number) => formatMicros(-micros);
    const dayIndex = dayNumber - this.world.startMs / DAY_MS;
    let firstCall: { atMs: number; visibleAtMs: number; micros: number; uuid: string } | null = null;
    for (const call of this.store.calls(account, dayNumber)) {
      const usage = { atMs: call.startMs, visibleAtMs: call.visibleAtMs, reverted: false, showInvoice: true };
      if (call.chargeMicros !== null && call.chargeMicros > 0) {
        const placed = call.direction === "placed";
        add({
          ...usage,
          amountText: charge(call.chargeMicros),
          type: placed ? 14 : 6,
          details: `${placed ? "Outbound call" : "Inbound call"} ${call.uuid}`,
          product: "calls",
        });
        if (placed && firstCall === null)
          firstCall = {
            atMs: call.startMs,
            visibleAtMs: call.visibleAtMs,
            micros: call.chargeMicros,
            uuid: call.uuid,
          };
      }
      if (call.forwardFeeMicros !== null && call.forwardFeeMicros > 0) {
        add({
          ...usage,
          amountText: charge(call.forwardFeeMicros),
          type: 11,
          details: `PSTN forwarding fee ${call.uuid}`,
          product: "forward",
        });
      }
      const transcription = call.transcription;
      if (transcription !== null && transcription.chargeMicros > 0) {
        add({
          ...usage,
          visibleAtMs: Math.max(call.visibleAtMs, transcription.readyAtMs),
          amountText: charge(transcription.chargeMicros),
          type: 41,
          details: `Call transcription ${call.uuid}`,
          product: "transcriptions",
        });
      }
    }
    for (const message of this.messages.day(account, dayNumber)) {
      const types = MESSAGE_TYPES[message.type][message.direction];
      const usage = {
        atMs: message.submittedAtMs,
        visibleAtMs: message.finalAtMs,
        reverted: false,
        showInvoice: true,
        product: "messages" as const,
      };
      if (message.finalChargeMicros > 0) {
        add({
          ...usage,
          amountText: charge(message.finalChargeMicros),
          type: types.charge,
          details: `Message ${message.id}`,
        });
      }
      if (message.finalStatus === "delivered" && message.carrierFeeMicros > 0) {
        add({
          ...usage,
          amountText: charge(message.carrierFeeMicros),
          type: types.fee,
          details: `Carrier fee ${message.id}`,
        });
      }
    }
    for (const v of account.validations) {
      if (Math.floor(v.createdAtMs / DAY_MS) !== dayNumber || v.count * v.perNumberMicros === 0) continue;
      add({
        atMs: v.createdAtMs,
        visibleAtMs: v.createdAtMs,
        amountText: charge(v.count * v.perNumberMicros),
        type: 29,
        details: `Number validation ${v.token} (${v.count} numbers)`,
        reverted: false,
        showInvoice: true,
        product: "validations",
      });
    }
    for (const month of this.months) {
      if (Math.max(month.fromMs, this.world.startMs) !== dayNumber * DAY_MS) continue;
      account.dids.forEach((did, d) => {
        if (did.addedMs >= month.nextMs || did.monthlyFeeMicros === 0) return;
        const atMs = dayNumber * DAY_MS + 60_000 * (d + 1);
        add({
          atMs,
          visibleAtMs: atMs,
          amountText: charge(did.monthlyFeeMicros),
          type: 3,
          details: `DID monthly fee ${did.number} ${month.key}`,
          reverted: false,
          showInvoice: true,
          product: "number_fees",
        });
      });
    }
    if (dayIndex % TOP_UP_EVERY === 0) {
      const pick = Math.floor(unitHash(this.world.seed, "ledger-top-up", account.index, dayNumber) * 3);
      const atMs = dayNumber * DAY_MS + 9 * 3_600_000;
      add({
        atMs,
        visibleAtMs: atMs,
        amountText: TOP_UP_AMOUNTS[pick] ?? "100.00",
        type: 19,
        details: "Credit card payment",
        reverted: false,
        showInvoice: false,
        product: null,
      });
    }
    const lastIndex = this.world.days - 1;
    SEEDED.forEach((seeded, k) => {
      if (Math.min(seeded.day, lastIndex) !== dayIndex) return;
      const atMs = dayNumber * DAY_MS + (10 + k) * 3_600_000;
      const line = {
        atMs,
        visibleAtMs: atMs,
        amountText: seeded.amount,
        type: seeded.type,
        details: seeded.details,
        reverted: seeded.reverted,
        showInvoice: false,
        product: null,
      };
      add(line, seeded.type === 99 ? BIG_ID_BASE + 2n * BigInt(account.index) : undefined);
    });
    if (dayIndex % 5 === 4 && firstCall !== null) {
      // Listed with the charge it duplicates (a late CDR's charge is late), never before its call is.
      add({
        atMs: firstCall.atMs + 1000,
        visibleAtMs: firstCall.visibleAtMs,
        amountText: charge(firstCall.micros),
        type: 14,
        details: `Outbound call ${firstCall.uuid} (duplicate charge, reverted)`,
        reverted: true,
        showInvoice: false,
        product: null,
      });
    }
    return lines.sort((a, b) => a.atMs - b.atMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The ledger's balance at the end of the day before `dayNumber`. */
  private openingOf(account: SandboxAccount, dayNumber: number): bigint {
    if (this.closingVersion !== this.store.version) {
      this.closing.clear();
      this.closingVersion = this.store.version;
    }
    const firstDay = this.world.startMs / DAY_MS;
    const endDay = Math.min(dayNumber, this.world.endMs / DAY_MS);
    let balance = OPENING_UNITS;
    let start = firstDay;
    // From the latest day before `dayNumber` whose closing balance is known, forward.
    for (let d = endDay - 1; d >= firstDay; d--) {
      const known = this.closing.get(`${account.index}:${d}`);
      if (known !== undefined) {
        balance = known;
        start = d + 1;
        break;
      }
    }
    for (let d = start; d < endDay; d++) {
      for (const line of this.dayLines(account, d)) if (!line.reverted) balance += line.amountUnits;
      this.closing.set(`${account.index}:${d}`, balance);
    }
    return balance;
  }

  /** The lines of `[fromDay, toDay]` (inclusive day numbers) visible at `nowMs`, with balances and statuses. */
  listed(account: SandboxAccount, fromDay: number, toDay: number, nowMs: number): ListedLine[] {
    const out: ListedLine[] = [];
    const first = Math.max(fromDay, this.world.startMs / DAY_MS);
    const last = Math.min(toDay, this.world.endMs / DAY_MS - 1);
    if (first > last) return out;
    let balance = this.openingOf(account, first);
    for (let day = first; day <= last; day++) {
      for (const line of this.dayLines(account, day)) {
        if (!line.reverted) balance += line.amountUnits;
        if (line.visibleAtMs > nowMs) continue;
        const status: LedgerStatus = line.reverted
          ? "Reverted"
          : nowMs < line.visibleAtMs + PENDING_MS
            ? "Pending"
            : "Committed";
        out.push({ line, balanceUnits: balance, status });
      }
    }
    return out;
  }

  /** A listed line's JSON as the API serves it, written by hand: `amount` and `balance_after` as exact JSON numbers. */
  static serialize(listed: ListedLine): string {
    const { line } = listed;
    return (
      `{"id":${line.id},"date":"${formatCdrDate(line.atMs)}","amount":${line.amountText},` +
      `"balance_after":${formatUnits(listed.balanceUnits)},"details":${JSON.stringify(line.details)},` +
      `"status":"${listed.status}","type":${line.type},"show_invoice":${line.showInvoice}}`
    );
  }
}
