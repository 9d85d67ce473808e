import { sql } from "kysely";
import type { EtlConfig } from "../../src/config/config.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMartsOf } from "./marts-build.js";
import { runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";

type Json = Record<string, unknown>;

const RANGE = { from: "2026-08-01", to: "2026-08-14" } as const;
const ATTRIBUTION_MS = 168 * 3_600_000;
const digits = (phone: unknown) => String(phone).replace(/\D/g, "");
const at = (text: unknown) => Date.parse(String(text));

/**
 * rpt_campaign_opt_outs from the sandbox's truth alone: each campaign message counted under its
 * account × campaign (tag) × sender, each opt-out under the latest campaign message to its number
 * from its sender (any sender when `sender_id` is null) at or before it and within 168 h, or under
 * a null campaign and its own sender. Rows: [account, campaign, sender, sent, delivered, opt-outs,
 * opt-outs of every sender].
 */
async function expectedRows(sandbox: Parameters<typeof truthRecords>[0], account: string): Promise<string[]> {
  const messages = (await truthRecords(sandbox, "messages", account, RANGE)).filter(
    (m: Json) => m.direction === "outbound" && m.tag !== null,
  );
  const rows = new Map<string, number[]>();
  const add = (campaign: unknown, sender: unknown, measure: number) => {
    const key = JSON.stringify([account, campaign ?? null, sender ?? null]);
    const row = rows.get(key) ?? [0, 0, 0, 0];
    row[measure]! += 1;
    rows.set(key, row);
  };
  for (const m of messages) {
    add(m.tag, m.from, 0);
    if (m.status === "delivered") add(m.tag, m.from, 1);
  }
  for (const optOut of await truthRecords(sandbox, "message_opt_outs", account, RANGE)) {
    const when = at(optOut.created_at);
    const message = messages
      .filter(
        (m) =>
          digits(m.to) === digits(optOut.phone_number) &&
          (optOut.sender_id === null || m.from === optOut.sender_id) &&
          at(m.submitted_at) <= when &&
          at(m.submitted_at) > when - ATTRIBUTION_MS,
      )
      .sort(
        (a, b) =>
          at(b.submitted_at) - at(a.submitted_at) || String(b.message_id).localeCompare(String(a.message_id)),
      )[0];
    add(message?.tag ?? null, message === undefined ? optOut.sender_id : message.from, 2);
    if (optOut.sender_id === null) add(message?.tag ?? null, message === undefined ? null : message.from, 3);
  }
  return [...rows].map(([key, measures]) => JSON.stringify([...JSON.parse(key), ...measures]));
}

describe("message opt-outs in the campaign funnel", () => {
  it("rpt_campaign_opt_outs counts each campaign's and sender's opt-outs as the truth does", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 71,
      start: RANGE.from,
      days: 10,
      accounts: 2,
      callsPerDay: 120,
      now: "2026-08-14T06:00:00Z",
    });
    const db = await createDatabase();
    const base = sandboxConfig(sandbox);
    const streams = ["messages", "message_opt_outs"];
    const config: EtlConfig = {
      ...base,
      accounts: base.accounts.map((account) => ({ ...account, streams })),
    };
    expect((await runAt(db.warehouse, config, sandbox, { command: "run" })).exitCode).toBe(0);
    await buildMartsOf(db.url, streams);
    const expected = [...(await expectedRows(sandbox, "master")), ...(await expectedRows(sandbox, "sub-1"))];
    const built = await sql<Json>`
      SELECT account, campaign, sender, messages_sent::int AS s, messages_delivered::int AS d,
             opt_outs::int AS o, all_sender_opt_outs::int AS a
      FROM analytics_marts.rpt_campaign_opt_outs`.execute(db.warehouse.db);
    const actual = built.rows.map((r) =>
      JSON.stringify([r.account, r.campaign, r.sender, r.s, r.d, r.o, r.a]),
    );
    // Opt-outs, of one sender and of every sender, happened in this world: the comparison reads some.
    expect(built.rows.reduce((n, r) => n + Number(r.o), 0)).toBeGreaterThan(10);
    expect(built.rows.reduce((n, r) => n + Number(r.a), 0)).toBeGreaterThan(0);
    expect(actual.sort()).toEqual(expected.sort());
  });
});
