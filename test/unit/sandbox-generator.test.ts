import { cdrSchema } from "@telecom-etl/platform/cdr.js";
import { shortLinkMetricSchema } from "@telecom-etl/platform/short-link-metric.js";
import { decodeCallUuid } from "@telecom-etl/sandbox/call-uuid.js";
import { CdrStore, rowJson } from "@telecom-etl/sandbox/cdr-store.js";
import { generateCdrDay } from "@telecom-etl/sandbox/generate-cdr-day.js";
import { generateShortLinkDay } from "@telecom-etl/sandbox/generate-short-link-metrics.js";
import { formatMicros, parseMicros } from "@telecom-etl/sandbox/money.js";
import { DAY_MS, resolveSandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import { serializeCdr } from "@telecom-etl/sandbox/serialize-cdr.js";
import { buildWorld } from "@telecom-etl/sandbox/world.js";
import { describe, expect, it } from "vitest";

const options = resolveSandboxOptions({ seed: 7, days: 10, callsPerDay: 400 });
const world = buildWorld(options);
const master = world.accounts[0]!;
const firstDay = world.startMs / DAY_MS;

describe("sandbox world generator", () => {
  it("builds the same world and the same CDR bytes from the same seed", () => {
    const again = buildWorld(resolveSandboxOptions({ seed: 7, days: 10, callsPerDay: 400 }));
    expect(again).toEqual(world);
    const a = generateCdrDay(world, master, firstDay + 3).map(serializeCdr);
    const b = generateCdrDay(again, again.accounts[0]!, firstDay + 3).map(serializeCdr);
    expect(a.join("\n")).toBe(b.join("\n"));
  });

  it("builds a different world from a different seed", () => {
    const other = buildWorld(resolveSandboxOptions({ seed: 8, days: 10, callsPerDay: 400 }));
    expect(other.accounts[0]!.apiKey).not.toBe(master.apiKey);
    const a = generateCdrDay(world, master, firstDay).map(serializeCdr);
    const b = generateCdrDay(other, other.accounts[0]!, firstDay).map(serializeCdr);
    expect(a.join("\n")).not.toBe(b.join("\n"));
  });

  it("names accounts master, sub-1, ... with distinct 32-hex keys", () => {
    expect(world.accounts.map((a) => a.name)).toEqual(["master", "sub-1", "sub-2"]);
    const keys = new Set(world.accounts.map((a) => a.apiKey));
    expect(keys.size).toBe(3);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
  });

  it("generates CDRs that satisfy the platform schema, sorted, within the day, with consistent charges", () => {
    const calls = generateCdrDay(world, master, firstDay + 1);
    expect(calls.length).toBeGreaterThan(200);
    const uuids = new Set<string>();
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      expect(cdrSchema.safeParse(JSON.parse(serializeCdr(call))).success).toBe(true);
      expect(call.startMs).toBeGreaterThanOrEqual((firstDay + 1) * DAY_MS);
      expect(call.startMs).toBeLessThan((firstDay + 2) * DAY_MS);
      if (i > 0) expect(call.startMs).toBeGreaterThanOrEqual(calls[i - 1]!.startMs);
      uuids.add(call.uuid);
      if (call.chargeMicros !== null && call.perMinuteMicros !== null) {
        expect(call.chargeMicros).toBe(call.perMinuteMicros * Math.ceil(call.duration / 60));
      }
      if (call.forwardFeeMicros !== null) expect(call.direction).toBe("received");
      if (call.sipTrunk !== null) expect(call.direction).toBe("placed");
      if (call.disposition !== "answered") expect(call.duration).toBe(0);
    }
    expect(uuids.size).toBe(calls.length);
    const directions = new Set(calls.map((c) => c.direction));
    expect(directions).toEqual(new Set(["placed", "received"]));
    expect(calls.some((c) => c.parentUuid !== null)).toBe(true);
  });

  it("encodes the call's location in its uuid", () => {
    const calls = generateCdrDay(world, world.accounts[2]!, firstDay + 5);
    for (const call of calls.slice(0, 50)) {
      expect(decodeCallUuid(world.seed, call.uuid)).toEqual({
        account: 2,
        dayNumber: firstDay + 5,
        index: call.index,
        kind: 0,
      });
    }
    expect(decodeCallUuid(world.seed + 1, calls[0]!.uuid)?.index).not.toBe(calls[0]!.index);
  });

  it("marks about lateShare of the CDRs late, visible 1 to 48 hours after the call", () => {
    const late = [];
    let total = 0;
    for (let d = 0; d < 10; d++) {
      const calls = generateCdrDay(world, master, firstDay + d);
      total += calls.length;
      late.push(...calls.filter((c) => c.late));
    }
    expect(late.length / total).toBeGreaterThan(0.01);
    expect(late.length / total).toBeLessThan(0.03);
    for (const call of late) {
      expect(call.visibleAtMs - call.endMs).toBeGreaterThanOrEqual(3_600_000);
      expect(call.visibleAtMs - call.endMs).toBeLessThanOrEqual(48 * 3_600_000);
    }
  });

  it("shapes volume by weekday and UTC hour, and splits directions and dispositions as documented", () => {
    const busy = buildWorld(resolveSandboxOptions({ seed: 7, days: 14, callsPerDay: 2000, accounts: 1 }));
    const account = busy.accounts[0]!;
    const byHour = new Array<number>(24).fill(0);
    const byWeekday = new Map<number, number[]>();
    let placed = 0;
    const dispositions = { placed: new Map<string, number>(), received: new Map<string, number>() };
    let total = 0;
    for (let d = 0; d < 14; d++) {
      const day = busy.startMs / DAY_MS + d;
      const calls = generateCdrDay(busy, account, day).filter((c) => c.parentUuid === null);
      const weekday = new Date(day * DAY_MS).getUTCDay();
      byWeekday.set(weekday, [...(byWeekday.get(weekday) ?? []), calls.length]);
      for (const call of calls) {
        byHour[new Date(call.startMs).getUTCHours()]! += 1;
        if (call.direction === "placed") placed += 1;
        const counts = dispositions[call.direction];
        counts.set(call.disposition, (counts.get(call.disposition) ?? 0) + 1);
        total += 1;
      }
    }
    const peak = byHour.indexOf(Math.max(...byHour));
    expect(peak).toBeGreaterThanOrEqual(14);
    expect(peak).toBeLessThanOrEqual(20);
    expect(byHour.slice(14, 21).reduce((a, b) => a + b)).toBeGreaterThan(
      3 * byHour.slice(0, 7).reduce((a, b) => a + b),
    );
    const mean = (weekday: number) => byWeekday.get(weekday)!.reduce((a, b) => a + b) / 2;
    expect(mean(0)).toBeLessThan(0.8 * mean(2));
    expect(Math.abs(placed / total - 0.65)).toBeLessThan(0.02);
    const share = (direction: "placed" | "received", disposition: string) =>
      (dispositions[direction].get(disposition) ?? 0) /
      [...dispositions[direction].values()].reduce((a, b) => a + b);
    expect(Math.abs(share("placed", "answered") - 0.62)).toBeLessThan(0.02);
    expect(Math.abs(share("received", "answered") - 0.8)).toBeLessThan(0.02);
  });

  it("generates nothing outside the world's days", () => {
    expect(generateCdrDay(world, master, firstDay - 1)).toEqual([]);
    expect(generateCdrDay(world, master, firstDay + 10)).toEqual([]);
  });

  it("generates short-link metrics that satisfy the schema", () => {
    const clicks = generateShortLinkDay(world, master, firstDay);
    expect(clicks.length).toBeGreaterThan(0);
    for (const click of clicks)
      expect(shortLinkMetricSchema.safeParse(JSON.parse(click.json)).success).toBe(true);
  });

  it("serves the same rows from recycled buffers after days are evicted", async () => {
    const store = new CdrStore(world, 300);
    const expected = (d: number) =>
      generateCdrDay(world, master, firstDay + d)
        .filter((c) => c.direction === "placed")
        .map(serializeCdr);
    for (let round = 0; round < 3; round++) {
      for (let d = 0; d < 10; d++) {
        const rows = store.day(master, firstDay + d).placed;
        expect(Array.from({ length: rows.count }, (_, i) => rowJson(rows, i))).toEqual(expected(d));
        // Evicted days' buffers are recycled on the next turn of the event loop.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  });

  it("caps the day cache at the configured number of rows", () => {
    const store = new CdrStore(world, 1000);
    for (let d = 0; d < 10; d++) store.day(master, firstDay + d);
    expect(store.cachedRowCount).toBeLessThanOrEqual(1000 + 600);
    expect(store.dayCharges(master, firstDay).callMicros).toBeGreaterThan(0);
  });
});

describe("sandbox money", () => {
  it("formats micro-dollars as decimal strings and parses them back", () => {
    expect(formatMicros(27_000)).toBe("0.027");
    expect(formatMicros(1_500_000)).toBe("1.50");
    expect(formatMicros(0)).toBe("0.00");
    expect(formatMicros(-12_340_000)).toBe("-12.34");
    expect(parseMicros("0.027")).toBe(27_000);
    expect(parseMicros("-12.34")).toBe(-12_340_000);
  });
});
