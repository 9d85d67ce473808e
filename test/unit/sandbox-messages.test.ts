import { type Message, messageSchema } from "@telecom-etl/platform/message.js";
import { MESSAGE_FINAL_WITHIN_MS } from "@telecom-etl/sandbox/generate-message.js";
import { generateMessageDay } from "@telecom-etl/sandbox/generate-message-day.js";
import { DAY_MS, resolveSandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import { messageAt, serializeMessage } from "@telecom-etl/sandbox/serialize-message.js";
import { buildWorld } from "@telecom-etl/sandbox/world.js";
import { describe, expect, it } from "vitest";

const world = buildWorld(resolveSandboxOptions({ seed: 12, days: 10, callsPerDay: 800 }));
const firstDay = world.startMs / DAY_MS;
const days = [0, 1, 2, 3, 4].flatMap((d) =>
  world.accounts.map((a) => generateMessageDay(world, a, firstDay + d)),
);
const messages = days.flat();

describe("sandbox message generator", () => {
  it("generates the same bytes from the same seed, sorted by submitted_at then id, ids unique", () => {
    const again = buildWorld(resolveSandboxOptions({ seed: 12, days: 10, callsPerDay: 800 }));
    const at = world.startMs + 5 * DAY_MS;
    expect(
      generateMessageDay(again, again.accounts[1]!, firstDay + 2).map((m) => serializeMessage(m, at)),
    ).toEqual(
      generateMessageDay(world, world.accounts[1]!, firstDay + 2).map((m) => serializeMessage(m, at)),
    );
    for (const day of days) {
      const keys = day.map((m) => `${String(m.submittedAtMs).padStart(15, "0")} ${m.id}`);
      expect(keys).toEqual([...keys].sort());
    }
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
    expect(generateMessageDay(world, world.accounts[0]!, firstDay - 1)).toEqual([]);
  });

  it("gives every message a timeline that ends in a final status within 72 h", () => {
    const counts = new Map<string, number>();
    for (const m of messages) {
      counts.set(m.finalStatus, (counts.get(m.finalStatus) ?? 0) + 1);
      expect(m.finalAtMs - m.submittedAtMs).toBeLessThanOrEqual(MESSAGE_FINAL_WITHIN_MS);
      expect(m.finalAtMs % 1000).toBe(0);
      if (m.sentAtMs !== null) expect(m.sentAtMs).toBeLessThanOrEqual(m.finalAtMs);
      if (m.pendingAtMs !== null) expect(m.pendingAtMs).toBeLessThan(m.sentAtMs!);
      expect(m.sentAtMs === null).toBe(m.finalStatus === "rejected");
      if (m.direction === "inbound") expect(m.finalAtMs).toBe(m.submittedAtMs);
    }
    const share = (status: string) => (counts.get(status) ?? 0) / messages.length;
    expect(messages.length).toBeGreaterThan(3000);
    expect(share("delivered")).toBeGreaterThan(0.85);
    for (const status of ["undelivered", "expired", "rejected", "dlr_expired"])
      expect({ status, seen: share(status) > 0.005 }).toEqual({ status, seen: true });
  });

  it("serves a valid row at every instant of a message's life, final once its report arrived", () => {
    for (const m of messages.slice(0, 400)) {
      const instants = [m.submittedAtMs, m.pendingAtMs, m.sentAtMs, m.finalAtMs - 1000, m.finalAtMs];
      let previous: Message | null = null;
      for (const at of instants) {
        if (at === null || at < m.submittedAtMs) continue;
        const row = messageSchema.parse(messageAt(m, at));
        if (at >= m.finalAtMs) expect(row.status).toBe(m.finalStatus);
        else expect(["accepted", "pending", "sent"]).toContain(row.status);
        if (previous !== null) expect(row.submitted_at).toBe(previous.submitted_at);
        previous = row;
      }
    }
  });
});
