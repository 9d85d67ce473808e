import { callTranscriptionSchema } from "@telecom-etl/platform/call-transcription.js";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { cdrSchema } from "@telecom-etl/platform/cdr.js";
import { invoiceSchema } from "@telecom-etl/platform/invoice.js";
import { FINAL_MESSAGE_STATUSES, messageSchema } from "@telecom-etl/platform/message.js";
import { validationResponseSchema } from "@telecom-etl/platform/validation.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
import { published } from "../helpers/catalogue-schemas.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * Invoices reconcile with the rest of the world, checked from the outside: for every invoice of
 * every account, `amount` = the month's call charges + forward fees (CDR truth) + transcription
 * charges (transcription truth, by the call's month) + validation charges (validation truth) +
 * message charges and carrier fees (message truth, by the month of `submitted_at`, every message
 * final) + the monthly fees of the account's numbers, to the micro-dollar, except exactly the invoices
 * `GET /_sandbox/world` lists as seeded discrepancies, which are off by exactly their `delta`.
 */

/** A decimal string as an exact integer number of micro-dollars (independent of the sandbox's money code). */
function micros(text: string): number {
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!match) throw new Error(`not a decimal with at most 6 places: ${text}`);
  const value = Number(match[2]) * 1_000_000 + Number((match[3] ?? "").padEnd(6, "0"));
  return match[1] === "-" ? -value : value;
}

async function ndjson(sandbox: RunningSandbox, path: string): Promise<Record<string, unknown>[]> {
  const text = await (await fetch(`${sandbox.url}${path}`)).text();
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// The clock is past every late CDR and transcription of the world, and past the last invoice's issue.
it.override({ sandboxOptions: { seed: 41, days: 75, callsPerDay: 60, now: "2026-11-05T00:00:00Z" } });

describe("sandbox invoices reconcile with the world's charges", () => {
  it("bills every month exactly its charges, except the listed discrepancies, off by their delta", async ({
    sandbox,
  }) => {
    const world = (await (await fetch(`${sandbox.url}/_sandbox/world`)).json()) as {
      invoice_discrepancies: {
        account: string;
        invoice_id: number;
        month: string;
        delta: string;
        issued: boolean;
      }[];
    };
    const listed = new Map(world.invoice_discrepancies.map((d) => [d.invoice_id, d]));
    const found: number[] = [];
    let invoices = 0;
    for (const account of sandbox.world.accounts) {
      const byMonth = new Map<string, number>();
      const add = (month: string, amount: number) => byMonth.set(month, (byMonth.get(month) ?? 0) + amount);
      const callMonth = new Map<string, string>();
      for (const line of await ndjson(sandbox, `/_sandbox/truth/cdrs?account=${account.name}`)) {
        const cdr = cdrSchema.parse(line);
        const month = cdr.date!.slice(0, 7);
        callMonth.set(cdr.uuid!, month);
        add(month, micros(cdr.charge ?? "0") + micros(cdr.forward_fee ?? "0"));
      }
      for (const line of await ndjson(sandbox, `/_sandbox/truth/transcriptions?account=${account.name}`)) {
        const transcription = callTranscriptionSchema.parse(line);
        add(callMonth.get(transcription.call_uuid)!, micros(transcription.charge));
      }
      const messagesByMonth = new Map<string, number>();
      for (const line of await ndjson(sandbox, `/_sandbox/truth/messages?account=${account.name}`)) {
        const message = messageSchema.parse(line);
        expect(FINAL_MESSAGE_STATUSES).toContain(message.status);
        const month = message.submitted_at.slice(0, 7);
        const cost = micros(message.charge) + micros(message.carrier_fees ?? "0");
        add(month, cost);
        messagesByMonth.set(month, (messagesByMonth.get(month) ?? 0) + cost);
      }
      const response = published(CATALOGUE.invoices).parse(
        await (
          await fetch(`${sandbox.url}/v1/billing/invoices?per_page=100`, {
            headers: { authorization: `Bearer ${account.apiKey}` },
          })
        ).json(),
      );
      expect(response.invoices.map((i) => invoiceSchema.parse(i).from_date)).toEqual([
        "2026-10-01",
        "2026-09-01",
        "2026-08-01",
      ]);
      const numberFees = account.dids.reduce((sum, did) => sum + did.monthlyFeeMicros, 0);
      for (const raw of response.invoices) {
        const invoice = invoiceSchema.parse(raw);
        const month = invoice.from_date.slice(0, 7);
        expect(invoice.to_date.slice(0, 7)).toBe(month);
        let validations = 0;
        for (const line of await ndjson(
          sandbox,
          `/_sandbox/truth/validations?account=${account.name}&from=${invoice.from_date}&to=${invoice.to_date}`,
        )) {
          const done = validationResponseSchema.parse(line);
          expect(done.status).toBe("success");
          for (const item of done.items) validations += micros(item.charge!);
        }
        const charges = (byMonth.get(month) ?? 0) + validations + numberFees;
        expect(charges).toBeGreaterThan(0);
        const breakdown = (await (
          await fetch(`${sandbox.url}/_sandbox/charges?account=${account.name}&month=${month}`)
        ).json()) as { messages: string; total: string };
        expect(messagesByMonth.get(month)).toBeGreaterThan(0);
        expect(micros(breakdown.messages)).toBe(messagesByMonth.get(month));
        expect(micros(breakdown.total)).toBe(charges);
        invoices += 1;
        const billed = micros(invoice.amount);
        const discrepancy = listed.get(invoice.id);
        if (discrepancy === undefined) {
          expect({ account: account.name, month, billed }).toEqual({
            account: account.name,
            month,
            billed: charges,
          });
        } else {
          found.push(invoice.id);
          expect(discrepancy).toMatchObject({ account: account.name, month, issued: true });
          expect(billed - charges).toBe(micros(discrepancy.delta));
          expect(billed).not.toBe(charges);
        }
      }
    }
    expect(invoices).toBe(9);
    expect(found.sort()).toEqual([...listed.keys()].sort());
    expect(found.length).toBeGreaterThan(0);
  });
});
