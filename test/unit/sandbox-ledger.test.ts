import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { parseJsonExact } from "@telecom-etl/platform/exact-number.js";
import { TRANSACTION_EXACT_NUMBERS, transactionSchema } from "@telecom-etl/platform/transaction.js";
import { CdrStore } from "@telecom-etl/sandbox/cdr-store.js";
import { InvoiceBook, monthsOf } from "@telecom-etl/sandbox/invoice-book.js";
import { LedgerBook, type LedgerProduct } from "@telecom-etl/sandbox/ledger-book.js";
import { formatUnits, numericText, unitsOfMicros, unitsOfText } from "@telecom-etl/sandbox/ledger-decimal.js";
import { MessageStore } from "@telecom-etl/sandbox/message-store.js";
import { DAY_MS, resolveSandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import { buildWorld } from "@telecom-etl/sandbox/world.js";
import { describe, expect, it } from "vitest";
import { answered } from "../helpers/catalogue-schemas.js";

// Two months (August and September 2026), two accounts: the master and one sub-account.
const world = buildWorld(
  resolveSandboxOptions({ seed: 5, start: "2026-08-20", days: 20, accounts: 2, callsPerDay: 60 }),
);
const store = new CdrStore(world, 10_000);
const messages = new MessageStore(world);
const invoices = new InvoiceBook(world, store, messages);
const ledger = new LedgerBook(world, store, messages);
const firstDay = world.startMs / DAY_MS;
const lastDay = world.endMs / DAY_MS - 1;
/** Long after every line is visible and committed. */
const later = world.endMs + 30 * DAY_MS;

describe("sandbox ledger", () => {
  it("bills per product and month exactly the invoice book's charges (committed usage lines)", () => {
    for (const account of world.accounts) {
      for (const month of monthsOf(world)) {
        const sums = new Map<LedgerProduct, bigint>();
        for (let day = month.fromMs / DAY_MS; day < month.nextMs / DAY_MS; day++) {
          for (const line of ledger.dayLines(account, day)) {
            if (line.product === null || line.reverted) continue;
            sums.set(line.product, (sums.get(line.product) ?? 0n) - line.amountUnits);
          }
        }
        const charges = invoices.monthCharges(account, month.key);
        const expected: Record<LedgerProduct, number> = {
          calls: charges.callMicros,
          forward: charges.forwardMicros,
          transcriptions: charges.transcriptionMicros,
          validations: charges.validationMicros,
          messages: charges.messageMicros,
          number_fees: charges.numberFeesMicros,
        };
        for (const [product, micros] of Object.entries(expected)) {
          expect(sums.get(product as LedgerProduct) ?? 0n, `${account.name} ${month.key} ${product}`).toBe(
            unitsOfMicros(micros),
          );
        }
        expect(charges.callMicros).toBeGreaterThan(0);
      }
    }
  });

  it("chains balance_after: each line's balance is the previous one plus its amount, reverted lines change nothing", () => {
    for (const account of world.accounts) {
      const listed = ledger.listed(account, firstDay, lastDay, later);
      expect(listed.length).toBeGreaterThan(100);
      let previous = listed[0]!.balanceUnits - listed[0]!.line.amountUnits;
      const ids = new Set<bigint>();
      for (const { line, balanceUnits, status } of listed) {
        expect(balanceUnits).toBe(line.reverted ? previous : previous + line.amountUnits);
        expect(status).toBe(line.reverted ? "Reverted" : "Committed");
        previous = balanceUnits;
        ids.add(line.id);
      }
      expect(ids.size).toBe(listed.length);
      // A range read on its own starts from the same running balance.
      const tail = ledger.listed(account, firstDay + 5, lastDay, later);
      expect(tail.map((l) => l.balanceUnits)).toEqual(
        listed.filter((l) => l.line.atMs >= (firstDay + 5) * DAY_MS).map((l) => l.balanceUnits),
      );
    }
  });

  it("serves the seeded edge amounts, a reverted duplicate, an unknown type and an id above 2^53, as exact JSON numbers", () => {
    const master = world.accounts[0]!;
    const listed = ledger.listed(master, firstDay, lastDay, later);
    const amounts = listed.map((l) => l.line.amountText);
    for (const edge of ["-0.1", "309.0601", "1e-7", "-12.345678901234567"]) expect(amounts).toContain(edge);
    expect(listed.some((l) => l.line.type === 99 && l.line.id > 2n ** 53n)).toBe(true);
    expect(listed.filter((l) => l.status === "Reverted").length).toBeGreaterThanOrEqual(2);
    expect(listed.some((l) => l.line.type === 19 && l.line.amountUnits > 0n)).toBe(true);
    const body = `{"is_empty":false,"transactions":[${listed.map((l) => LedgerBook.serialize(l)).join(",")}]}`;
    const parsed = parseJsonExact(body, TRANSACTION_EXACT_NUMBERS) as {
      transactions: {
        id: { rawJSON: string };
        amount: { rawJSON: string };
        balance_after: { rawJSON: string };
      }[];
    };
    expect(parsed.transactions.map((t) => t.amount.rawJSON)).toEqual(amounts);
    expect(parsed.transactions.map((t) => t.id.rawJSON)).toEqual(listed.map((l) => l.line.id.toString()));
    expect(parsed.transactions.map((t) => t.balance_after.rawJSON)).toEqual(
      listed.map((l) => formatUnits(l.balanceUnits)),
    );
  });

  it("lists a line only once visible, Pending for its first hour", () => {
    const master = world.accounts[0]!;
    const at = world.startMs + DAY_MS + 12 * 3_600_000;
    const listed = ledger.listed(master, firstDay, lastDay, at);
    expect(listed.every((l) => l.line.visibleAtMs <= at)).toBe(true);
    expect(listed.some((l) => l.status === "Pending")).toBe(true);
    expect(
      listed.filter((l) => l.status === "Pending").every((l) => at - l.line.visibleAtMs < 3_600_000),
    ).toBe(true);
  });
});

describe("exact ledger numbers", () => {
  it("parses the named fields' numbers as their source text and leaves the rest alone", () => {
    const body = parseJsonExact(
      '{"is_empty":false,"transactions":[{"id":9007199254740993,"amount":-1.50,"balance_after":1e-7,"type":14}],"pagination":{"current_page":1,"per_page":25,"total":1,"total_pages":1}}',
      TRANSACTION_EXACT_NUMBERS,
    );
    const answer = answered(CATALOGUE.transactions).parse(body);
    expect(answer.pagination?.total).toBe(1);
    expect(JSON.stringify(answer.transactions)).toBe(
      '[{"id":9007199254740993,"amount":-1.50,"balance_after":1e-7,"type":14}]',
    );
  });

  it("refuses an amount that is a JSON string, null or missing, and keeps a type code the documentation does not list", () => {
    const row = (amount: string) =>
      (
        parseJsonExact(
          `{"transactions":[{"id":1,"date":"2026-08-01T00:00:00Z",${amount}"balance_after":0.10,"details":"x","status":"Committed","type":777,"show_invoice":true}]}`,
          TRANSACTION_EXACT_NUMBERS,
        ) as { transactions: unknown[] }
      ).transactions[0];
    const issue = (amount: string) => {
      const result = transactionSchema.safeParse(row(amount));
      return result.success ? null : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(issue('"amount":"1.50",')).toEqual(["amount: expected a JSON number, got a string"]);
    expect(issue('"amount":null,')).toEqual(["amount: expected a JSON number, got null"]);
    expect(issue("")).toEqual(["amount: expected a JSON number, got nothing (the field is missing)"]);
    const kept = transactionSchema.parse(row('"amount":-0.10,'));
    expect(kept).toMatchObject({ id: "1", amount: "-0.10", balance_after: "0.10", type: 777 });
    // Parsed without source text (plain JSON.parse), a number is refused rather than trusted.
    expect(transactionSchema.safeParse(JSON.parse(JSON.stringify(kept))).success).toBe(false);
  });

  it("writes decimals as PostgreSQL's numeric prints them and keeps them exact", () => {
    expect(numericText("1e-7")).toBe("0.0000001");
    expect(numericText("-1.50")).toBe("-1.50");
    expect(numericText("1.25e1")).toBe("12.5");
    expect(numericText("2E3")).toBe("2000");
    expect(formatUnits(unitsOfText("-12.345678901234567") + unitsOfText("1e-7"))).toBe("-12.345678801234567");
    expect(formatUnits(unitsOfText("309.0601") - unitsOfText("0.1"))).toBe("308.9601");
  });
});
