import { clicksOn, conversionsOn, FunnelStore, pureFunnel } from "@telecom-etl/sandbox/campaign-funnel.js";
import { CdrStore, rowJson } from "@telecom-etl/sandbox/cdr-store.js";
import { type CdrCall, generateCdrDay, regenerateCall } from "@telecom-etl/sandbox/generate-cdr-day.js";
import { messageCostMicros } from "@telecom-etl/sandbox/generate-message.js";
import { generateMessageDay, messageDayCostMicros } from "@telecom-etl/sandbox/generate-message-day.js";
import { DAY_MS, resolveSandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import { serializeCdr } from "@telecom-etl/sandbox/serialize-cdr.js";
import { buildWorld } from "@telecom-etl/sandbox/world.js";
import { describe, expect, it } from "vitest";

const world = buildWorld(resolveSandboxOptions({ seed: 19, days: 14, callsPerDay: 500 }));
const master = world.accounts[0]!;
const firstDay = world.startMs / DAY_MS;

describe("sandbox campaign funnel and conversion calls", () => {
  it("packs conversion and API calls into a day in the same order as the pure generator", () => {
    const store = new CdrStore(world, 100_000);
    const day = firstDay + 6;
    const conversions = store.conversions(master, day);
    expect(conversions.length).toBeGreaterThan(0);
    expect(conversions).toEqual(conversionsOn(pureFunnel(world, master), day));
    // An API call in the middle of the day joins the merge too.
    const template = generateCdrDay(world, master, day).find((c) => c.direction === "placed")!;
    const live: CdrCall = {
      ...template,
      index: 1,
      startMs: day * DAY_MS + 43_200_500,
      uuid: "0".repeat(8) + template.uuid.slice(8),
    };
    store.addLive(master, live);
    const expected = [...generateCdrDay(world, master, day), live].sort(
      (a, b) => a.startMs - b.startMs || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0),
    );
    const packed = store.day(master, day);
    for (const direction of ["placed", "received"] as const) {
      const rows = packed[direction];
      expect(Array.from({ length: rows.count }, (_, i) => rowJson(rows, i))).toEqual(
        expected.filter((c) => c.direction === direction).map(serializeCdr),
      );
    }
    // A conversion call is found again from its index alone.
    const n = packed.seconds.length;
    const call = regenerateCall(world, master, day, 2 * n, packed.seconds, packed.conversions)!;
    expect(call.from).toBe(conversions[0]!.phone);
    expect(call.disposition).toBe("answered");
    expect(generateCdrDay(world, master, day).map((c) => c.uuid)).toContain(call.uuid);
  });

  it("keeps the cached funnel equal to the pure one, and clicks within their day", () => {
    const cached = new FunnelStore(world).of(master);
    const pure = pureFunnel(world, master);
    for (let day = firstDay; day < firstDay + 14; day++) {
      expect(cached(day)).toEqual(pure(day));
      for (const click of clicksOn(world, master, cached, day)) {
        expect(Math.floor(click.createdAtMs / DAY_MS)).toBe(day);
        expect(click.messageDay).toBeLessThanOrEqual(day);
      }
    }
    expect(pure(firstDay - 1).clickCount).toBe(0);
  });

  it("costs a day of messages the same from their fates as from the generated messages", () => {
    for (const account of world.accounts) {
      for (let day = firstDay; day < firstDay + 4; day++) {
        const generated = generateMessageDay(world, account, day).reduce(
          (sum, m) => sum + messageCostMicros(m),
          0,
        );
        expect(messageDayCostMicros(world, account, day)).toBe(generated);
      }
    }
  });
});
