import { type Cdr, cdrDetailSchema, cdrSchema } from "@telecom-etl/platform/cdr.js";
import { type Message, messageSchema } from "@telecom-etl/platform/message.js";
import { type ShortLinkMetric, shortLinkMetricSchema } from "@telecom-etl/platform/short-link-metric.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
import { describe, expect } from "vitest";
import { ndjson, platform, sandboxTest } from "./sandbox-client.js";

/**
 * The campaign funnel a reporting layer builds, checked from the truth exports only: messages
 * tagged with a campaign, clicks on the campaign's short links by phones that campaign's messages
 * were delivered to (after the delivery, on the link the message carried), and a share of clickers
 * placing an answered call to one of the account's numbers within 48 h of their click.
 */

const WORLD = { seed: 47, days: 12, callsPerDay: 300, accounts: 2 } as const;
const END = Date.parse("2026-08-13T00:00:00Z");
const HOUR = 3_600_000;
const test = sandboxTest({
  // The clock is 10 days past the world's end: every message is final and every late CDR visible.
  v2024: { ...WORLD, now: "2026-08-23T00:00:00Z" },
  v2026: { ...WORLD, now: "2026-08-23T00:00:00Z", apiRevision: "2026", dropDeprecated: true },
});

type Received = Cdr & { direction: string };

interface AccountFunnel {
  readonly messages: Message[];
  readonly clicks: ShortLinkMetric[];
  readonly received: Received[];
}

async function funnelOf(sandbox: RunningSandbox, account: string): Promise<AccountFunnel> {
  const messages = (await ndjson(sandbox, `/_sandbox/truth/messages?account=${account}`)).map((m) =>
    messageSchema.parse(m),
  );
  const clicks = (await ndjson(sandbox, `/_sandbox/truth/short_link_metrics?account=${account}`)).map((c) =>
    shortLinkMetricSchema.parse(c),
  );
  const received = (await ndjson(sandbox, `/_sandbox/truth/cdrs?account=${account}`))
    .filter((c) => c.direction === "received")
    .map((c) => ({ ...cdrSchema.parse(c), direction: String(c.direction) }));
  return { messages, clicks, received };
}

/** When a click happened (`2026-08-03 14:02:11.123Z`). */
const clickMs = (click: ShortLinkMetric) => Date.parse(click.created_at.replace(" ", "T"));

describe("sandbox campaign funnel", () => {
  test("clicks come from phones the campaign's messages were delivered to, after the delivery", async ({
    sandboxes,
  }) => {
    for (const account of sandboxes.v2024.world.accounts) {
      const { messages, clicks } = await funnelOf(sandboxes.v2024, account.name);
      const campaigns = new Set(account.shortLinks.map((l) => l.utmCampaign));
      const tagged = messages.filter((m) => m.direction === "outbound" && m.tag !== null);
      expect(new Set(tagged.map((m) => m.tag))).toEqual(campaigns);
      const delivered = new Map<string, Message[]>();
      for (const m of tagged.filter((t) => t.status === "delivered")) {
        const key = `${m.to}|${m.tag}`;
        delivered.set(key, [...(delivered.get(key) ?? []), m]);
      }
      expect(clicks.length).toBeGreaterThan(100);
      for (const click of clicks) {
        const received = (delivered.get(`${click.phone}|${click.utm_campaign}`) ?? []).filter(
          (m) =>
            Date.parse(m.delivered_at!) <= clickMs(click) &&
            m.message_body.text.includes(`https://sbx.link/${click.link_hash}`),
        );
        expect({ click, received: received.length > 0 }).toEqual({ click, received: true });
      }
      // Clicks come every day of the world, on every campaign.
      const days = new Set(clicks.map((c) => c.created_at.slice(0, 10)));
      for (let ms = Date.parse("2026-08-01T00:00:00Z"); ms < END; ms += 24 * HOUR)
        expect(days).toContain(new Date(ms).toISOString().slice(0, 10));
      expect(new Set(clicks.map((c) => c.utm_campaign))).toEqual(campaigns);
      // Phones of the pool receive messages without clicking too.
      const clickers = new Set(clicks.map((c) => c.phone));
      expect(new Set(tagged.map((m) => m.to)).size).toBeGreaterThan(clickers.size);
    }
  });

  test("10-20% of clickers call one of the account's numbers within 48 h, and the call is answered", async ({
    sandboxes,
  }) => {
    for (const account of sandboxes.v2024.world.accounts) {
      const { clicks, received } = await funnelOf(sandboxes.v2024, account.name);
      const numbers = new Set(account.dids.map((d) => d.number));
      const clicksByPhone = new Map<string, number[]>();
      for (const click of clicks)
        clicksByPhone.set(click.phone, [...(clicksByPhone.get(click.phone) ?? []), clickMs(click)]);
      // A call from a clicker's phone is a conversion: answered, to the account, after a click.
      const conversions = received.filter((c) => clicksByPhone.has(c.from));
      expect(conversions.length).toBeGreaterThan(10);
      for (const call of conversions) {
        const at = Date.parse(call.date!);
        expect(call.disposition).toBe("answered");
        expect(numbers.has(call.to)).toBe(true);
        const after = clicksByPhone.get(call.from)!.some((c) => c <= at && at <= c + 48 * HOUR);
        expect({ call: call.uuid, after }).toEqual({ call: call.uuid, after: true });
      }
      // Clicks far enough from the world's end for their call to fall inside the world.
      const settled = clicks.filter((c) => clickMs(c) < END - 48 * HOUR);
      const converted = settled.filter((click) =>
        conversions.some((call) => {
          const at = Date.parse(call.date!);
          return call.from === click.phone && clickMs(click) <= at && at <= clickMs(click) + 48 * HOUR;
        }),
      );
      const share = converted.length / settled.length;
      expect(share).toBeGreaterThan(0.07);
      expect(share).toBeLessThan(0.25);
    }
  });

  test.for(["v2024", "v2026"] as const)(
    "%s: a conversion call is a CDR like any other: single CDR, list, same bytes",
    async (name, { sandboxes }) => {
      const sandbox = sandboxes[name];
      const { clicks, received } = await funnelOf(sandbox, "master");
      const phones = new Set(clicks.map((c) => c.phone));
      const call = received.find((c) => phones.has(c.from))!;
      const id = call.call_id ?? call.uuid!;
      const single = await platform(sandbox, `${name === "v2024" ? "/v1/cdr" : "/v1/cdrs"}/${id}`);
      expect(single.status).toBe(200);
      const { recording_url: _, ...listed } = cdrDetailSchema.parse(single.body);
      const { direction: __, ...truth } = call;
      expect(listed).toEqual(truth);
      const day = call.date!.slice(0, 10);
      const list = await platform(
        sandbox,
        `${name === "v2024" ? "/v1/cdr" : "/v1/cdrs"}?from=${day}&to=${day}&type=received&from_search=${call.from}`,
      );
      expect((list.body as { items: unknown[] }).items).toContainEqual(truth);
    },
  );
});
