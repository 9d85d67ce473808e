import { invoiceSchema } from "@telecom-etl/platform/invoice.js";
import { CdrStore } from "@telecom-etl/sandbox/cdr-store.js";
import { generateCdrDay } from "@telecom-etl/sandbox/generate-cdr-day.js";
import { messageCostMicros } from "@telecom-etl/sandbox/generate-message.js";
import { generateMessageDay } from "@telecom-etl/sandbox/generate-message-day.js";
import { InvoiceBook } from "@telecom-etl/sandbox/invoice-book.js";
import { MessageStore } from "@telecom-etl/sandbox/message-store.js";
import { parseMicros } from "@telecom-etl/sandbox/money.js";
import { DAY_MS, resolveSandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import { buildWorld } from "@telecom-etl/sandbox/world.js";
import { describe, expect, it } from "vitest";

const world = buildWorld(resolveSandboxOptions({ seed: 3, start: "2026-08-01", days: 62, callsPerDay: 150 }));
const store = new CdrStore(world, 10_000);
const book = new InvoiceBook(world, store, new MessageStore(world));

function independentCallTotal(accountIndex: number, fromDay: string, toDay: string): number {
  let micros = 0;
  const account = world.accounts[accountIndex]!;
  for (let ms = Date.parse(`${fromDay}T00:00:00Z`); ms <= Date.parse(`${toDay}T00:00:00Z`); ms += DAY_MS) {
    for (const call of generateCdrDay(world, account, ms / DAY_MS)) {
      micros +=
        (call.chargeMicros ?? 0) + (call.forwardFeeMicros ?? 0) + (call.transcription?.chargeMicros ?? 0);
    }
  }
  return micros;
}

/** Final charges plus carrier fees of the messages submitted in the days, from the generated messages. */
function independentMessageTotal(accountIndex: number, fromDay: string, toDay: string): number {
  let micros = 0;
  const account = world.accounts[accountIndex]!;
  for (let ms = Date.parse(`${fromDay}T00:00:00Z`); ms <= Date.parse(`${toDay}T00:00:00Z`); ms += DAY_MS) {
    for (const message of generateMessageDay(world, account, ms / DAY_MS))
      micros += messageCostMicros(message);
  }
  return micros;
}

describe("sandbox invoices", () => {
  it("bills one invoice per account per month touched by the world", () => {
    expect(book.invoices.map((i) => i.month)).toEqual(
      world.accounts.flatMap(() => ["2026-08", "2026-09", "2026-10"]),
    );
    expect(new Set(book.invoices.map((i) => i.id)).size).toBe(book.invoices.length);
  });

  it("bills exactly the month's charges, except the seeded discrepancies", () => {
    expect(book.invoices.some((i) => i.discrepancy)).toBe(true);
    for (const invoice of book.invoices.filter((i) => i.month === "2026-08")) {
      const account = world.accounts.find((a) => a.name === invoice.account)!;
      const body = JSON.parse(book.serialize(account, invoice));
      expect(invoiceSchema.safeParse(body).success).toBe(true);
      const calls = independentCallTotal(account.index, "2026-08-01", "2026-08-31");
      const messages = independentMessageTotal(account.index, "2026-08-01", "2026-08-31");
      expect(messages).toBeGreaterThan(0);
      expect(book.monthCharges(account, "2026-08").messageMicros).toBe(messages);
      const validations = account.validations
        .filter((v) => new Date(v.createdAtMs).toISOString().startsWith("2026-08"))
        .reduce((sum, v) => sum + v.count * v.perNumberMicros, 0);
      const fees = account.dids.reduce((sum, d) => sum + d.monthlyFeeMicros, 0);
      expect(parseMicros(body.amount)).toBe(calls + validations + messages + fees + invoice.deltaMicros);
      if (!invoice.discrepancy) expect(invoice.deltaMicros).toBe(0);
      else expect(invoice.deltaMicros).not.toBe(0);
    }
  });

  it("issues a month's invoice on the first day of the next month", () => {
    const master = world.accounts[0]!;
    expect(book.issued(master, Date.parse("2026-08-31T23:59:59Z"))).toEqual([]);
    expect(book.issued(master, Date.parse("2026-09-01T00:00:00Z")).map((i) => i.month)).toEqual(["2026-08"]);
    expect(book.issued(master, Date.parse("2026-11-01T00:00:00Z")).map((i) => i.month)).toEqual([
      "2026-10",
      "2026-09",
      "2026-08",
    ]);
  });
});
