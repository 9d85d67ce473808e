import { apiKeySchema } from "@telecom-etl/platform/api-key.js";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { ERROR_MESSAGES, paginationSchema } from "@telecom-etl/platform/common.js";
import {
  FINAL_MESSAGE_STATUSES,
  MESSAGE_STATUSES,
  type Message,
  messageBodySchema,
  messageSchema,
} from "@telecom-etl/platform/message.js";
import { PERMISSION_RESOURCES } from "@telecom-etl/platform/permissions.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
import { describe, expect } from "vitest";
import { answered } from "../helpers/catalogue-schemas.js";
import { admin, exchangeDigest, ndjson, ndjsonLines, platform, sandboxTest } from "./sandbox-client.js";

/**
 * `GET /v3/messages` over HTTP (platform-facts.md "Messages"), in both API revisions: bodies that
 * fit the shared schemas exactly, the query contract (type required, a `submitted_at` window of
 * whole UTC days with `sent_before` exclusive, exact filters, paging), permissions, statuses that
 * move forward with the sandbox clock until final within 72 h, the truth export, byte determinism
 * and row faults.
 */

const WORLD = { seed: 31, days: 6, callsPerDay: 200, accounts: 2, now: "2026-08-04T12:00:00Z" } as const;
const test = sandboxTest({
  v2024: { ...WORLD },
  v2026: { ...WORLD, apiRevision: "2026" },
  twin: { ...WORLD },
  late: { ...WORLD, callsPerDay: 1000, now: "2026-08-20T00:00:00Z" },
  faulty: {
    ...WORLD,
    faults: {
      rows: { wrongType: 0.01, missingField: 0.01, unknownEnum: 0.01, extraField: 0.02 },
      // carrier_fees is optional: a platform that stops sending it serves rows that stay valid.
      drift: [{ stream: "messages", field: "carrier_fees", change: "remove" }],
    },
  },
});
const LIFECYCLE: readonly string[] = MESSAGE_STATUSES;
const FINAL: readonly string[] = FINAL_MESSAGE_STATUSES;
const HOUR = 3_600_000;

/** Parses a message with the shared schema and refuses fields the schema does not list. */
function exactMessage(item: unknown): Message {
  const message = messageSchema.parse(item);
  expect(Object.keys(item as object).filter((k) => !(k in messageSchema.shape))).toEqual([]);
  expect(Object.keys(message.message_body).filter((k) => !(k in messageBodySchema.shape))).toEqual([]);
  return message;
}

/** Every message of a list query, page by page (`query` without paging), with the raw pages. */
async function listAll(
  sandbox: RunningSandbox,
  query: string,
  options: { account?: number; perPage?: number } = {},
): Promise<{ items: Message[]; pages: string[]; total: number }> {
  const items: Message[] = [];
  const pages: string[] = [];
  for (let page = 1; ; page++) {
    const answer = await platform(
      sandbox,
      `/v3/messages?${query}&per_page=${options.perPage ?? 100}&page=${page}`,
      { account: options.account ?? 0 },
    );
    expect(answer.status).toBe(200);
    pages.push(answer.text);
    const body = answered(CATALOGUE.messages).parse(answer.body);
    expect(Object.keys(body)).toEqual(["items", "pagination"]);
    const pagination = paginationSchema.parse(body.pagination);
    expect(Object.keys(pagination)).toEqual(["current_page", "per_page", "total", "total_pages"]);
    items.push(...body.items.map(exactMessage));
    if (page >= pagination.total_pages) return { items, pages, total: pagination.total };
  }
}

const dayOf = (iso: string) => iso.slice(0, 10);

describe("sandbox messages: GET /v3/messages", () => {
  test.for(["v2024", "v2026"] as const)(
    "%s: serves both directions with schema-exact items in a submitted_at window of whole UTC days",
    async (name, { sandboxes }) => {
      const sandbox = sandboxes[name];
      const account = sandbox.world.accounts[0]!;
      const smsNumbers = new Set(account.dids.filter((d) => d.smsEnabled).map((d) => d.number));
      const tags = new Set(account.shortLinks.map((l) => l.utmCampaign));
      for (const type of ["outbound", "inbound"] as const) {
        const window = await listAll(sandbox, `type=${type}&sent_after=2026-08-02&sent_before=2026-08-04`);
        expect(window.items.length).toBe(window.total);
        expect(new Set(window.items.map((m) => m.message_id)).size).toBe(window.total);
        // One-day windows partition a longer one: sent_after inclusive, sent_before exclusive.
        const first = await listAll(sandbox, `type=${type}&sent_after=2026-08-02&sent_before=2026-08-03`);
        const second = await listAll(sandbox, `type=${type}&sent_after=2026-08-03&sent_before=2026-08-04`);
        expect(first.items.every((m) => dayOf(m.submitted_at) === "2026-08-02")).toBe(true);
        expect(second.items.every((m) => dayOf(m.submitted_at) === "2026-08-03")).toBe(true);
        expect([...first.items, ...second.items]).toEqual(window.items);
        // Served by submitted_at, then message_id.
        const keys = window.items.map((m) => `${m.submitted_at} ${m.message_id}`);
        expect(keys).toEqual([...keys].sort());
        for (const m of window.items) {
          expect(m.direction).toBe(type);
          if (m.message_type === "mms") {
            expect(m.segments).toBe(1);
            expect(m.message_body.media!.length).toBeGreaterThan(0);
          } else {
            expect(m.message_body.media).toBeNull();
            expect(m.segments).toBe(
              m.message_body.text.length <= 160 ? 1 : Math.ceil(m.message_body.text.length / 153),
            );
          }
          if (type === "inbound") {
            expect(smsNumbers.has(m.to)).toBe(true);
            expect(m.tag).toBeNull();
          } else if (m.tag !== null) {
            expect(tags.has(m.tag)).toBe(true);
            expect(m.message_body.text).toMatch(/https:\/\/sbx\.link\/[0-9a-f]{7}/);
            expect(smsNumbers.has(m.from) || /^[A-Z0-9]{1,11}$/.test(m.from)).toBe(true);
          }
        }
        expect(window.items.some((m) => m.segments > 1) || type === "inbound").toBe(true);
      }
      const outbound = await listAll(sandbox, "type=outbound&sent_after=2026-08-02&sent_before=2026-08-03");
      expect(outbound.items.some((m) => m.tag === null)).toBe(true);
      expect(outbound.items.some((m) => m.tag !== null)).toBe(true);
      // Without bounds: every day of the world up to the clock.
      const open = await listAll(sandbox, "type=inbound");
      expect(new Set(open.items.map((m) => dayOf(m.submitted_at)))).toEqual(
        new Set(["2026-08-01", "2026-08-02", "2026-08-03", "2026-08-04"]),
      );
      const after = await listAll(sandbox, "type=inbound&sent_after=2026-08-03");
      expect(after.items).toEqual(open.items.filter((m) => m.submitted_at >= "2026-08-03"));
      const before = await listAll(sandbox, "type=inbound&sent_before=2026-08-02");
      expect(before.items).toEqual(open.items.filter((m) => m.submitted_at < "2026-08-02"));
    },
  );

  test("applies the exact filters and pages a window without gaps or repeats", async ({ sandboxes }) => {
    const sandbox = sandboxes.v2024;
    const base = "type=outbound&sent_after=2026-08-01&sent_before=2026-08-04";
    const all = await listAll(sandbox, base);
    const sample = all.items.find((m) => m.tag !== null)!;
    const cases: [string, (m: Message) => boolean][] = [
      [`from=${sample.from}`, (m) => m.from === sample.from],
      [`to=${sample.to}`, (m) => m.to === sample.to],
      [`tag=${sample.tag}`, (m) => m.tag === sample.tag],
      ["message_type=sms", (m) => m.message_type === "sms"],
      ["message_type=mms", (m) => m.message_type === "mms"],
      ...MESSAGE_STATUSES.map((s): [string, (m: Message) => boolean] => [
        `status=${s}`,
        (m) => m.status === s,
      ]),
    ];
    let statusTotal = 0;
    for (const [filter, keep] of cases) {
      const filtered = await listAll(sandbox, `${base}&${filter}`);
      expect({ filter, items: filtered.items }).toEqual({ filter, items: all.items.filter(keep) });
      if (filter.startsWith("status=")) statusTotal += filtered.total;
    }
    expect(statusTotal).toBe(all.total);
    // Small pages cover the same rows; a page past the end is empty with the same pagination.
    const small = await listAll(sandbox, base, { perPage: 7 });
    expect(small.items).toEqual(all.items);
    const past = await platform(sandbox, `/v3/messages?${base}&per_page=7&page=${small.pages.length + 1}`);
    expect(past.body).toEqual({
      items: [],
      pagination: {
        current_page: small.pages.length + 1,
        per_page: 7,
        total: all.total,
        total_pages: Math.ceil(all.total / 7),
      },
    });
  });

  test("refuses a bad query: 400 without type, 422 for an invalid value or an empty window", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.v2026;
    const message = (name: string) => `Missing or invalid parameter ${name}`;
    const cases: [string, number, string][] = [
      ["sent_after=2026-08-01", 400, "type"],
      ["type=", 400, "type"],
      ["type=both", 422, "type"],
      ["type=inbound&sent_after=2026-8-1", 422, "sent_after"],
      ["type=inbound&sent_before=2026-02-30", 422, "sent_before"],
      ["type=inbound&sent_after=2026-08-02&sent_before=2026-08-02", 422, "sent_before"],
      ["type=inbound&sent_after=2026-08-03&sent_before=2026-08-02", 422, "sent_before"],
      ["type=inbound&status=queued", 422, "status"],
      ["type=inbound&message_type=voice", 422, "message_type"],
      ["type=inbound&page=0", 400, "page"],
    ];
    for (const [query, status, name] of cases) {
      const answer = await platform(sandbox, `/v3/messages?${query}`);
      expect({ query, status: answer.status, body: answer.body }).toEqual({
        query,
        status,
        body: { success: false, message: message(name) },
      });
    }
  });

  test("needs messages:read", async ({ sandboxes }) => {
    const sandbox = sandboxes.v2024;
    const keyWith = async (levels: Record<string, string>) => {
      const created = await platform(sandbox, "/v1/api-keys", {
        method: "POST",
        body: { label: "messages", permissions: levels },
      });
      return apiKeySchema.parse(created.body).value!;
    };
    const others = Object.fromEntries(
      PERMISSION_RESOURCES.filter((r) => r !== "messages").map((r) => [r, "write"]),
    );
    const path = "/v3/messages?type=outbound&sent_after=2026-08-01&sent_before=2026-08-02";
    const denied = await platform(sandbox, path, { key: await keyWith(others) });
    expect(denied).toMatchObject({
      status: 403,
      body: { success: false, message: ERROR_MESSAGES.forbidden },
    });
    expect((await platform(sandbox, path, { key: await keyWith({ messages: "read" }) })).status).toBe(200);
  });
});

describe("sandbox messages over sandbox time", () => {
  test("moves every message forward through its statuses until it is final, within 72 h of submission", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.late;
    const query = "type=outbound&sent_after=2026-08-03&sent_before=2026-08-04";
    const seen = new Map<string, Message[]>();
    const instants = [
      "2026-08-03T13:30:00Z",
      "2026-08-03T18:00:00Z",
      "2026-08-04T00:00:00Z",
      "2026-08-04T12:00:00Z",
      "2026-08-05T12:00:00Z",
      "2026-08-06T12:00:00Z",
      "2026-08-06T23:59:59Z",
      "2026-08-07T00:00:00Z",
    ];
    const { now } = await admin<{ now: string }>(sandbox, "/_sandbox/clock");
    try {
      for (const instant of instants) {
        await admin(sandbox, "/_sandbox/clock", { now: instant });
        for (const m of (await listAll(sandbox, query)).items) {
          seen.set(m.message_id, [...(seen.get(m.message_id) ?? []), m]);
          expect(Date.parse(m.submitted_at)).toBeLessThanOrEqual(Date.parse(instant));
        }
      }
    } finally {
      await admin(sandbox, "/_sandbox/clock", { now });
    }
    let changed = 0;
    let lateFinals = 0;
    for (const history of seen.values()) {
      const first = history[0]!;
      for (let i = 1; i < history.length; i++) {
        const [a, b] = [history[i - 1]!, history[i]!];
        // Statuses only move forward; what the message is never changes.
        expect(LIFECYCLE.indexOf(b.status)).toBeGreaterThanOrEqual(LIFECYCLE.indexOf(a.status));
        if (FINAL.includes(a.status)) expect(b).toEqual(a);
        expect({
          ...b,
          status: "",
          charge: "",
          carrier_fees: "",
          sent_at: "",
          delivered_at: "",
          error_message: "",
        }).toEqual({
          ...a,
          status: "",
          charge: "",
          carrier_fees: "",
          sent_at: "",
          delivered_at: "",
          error_message: "",
        });
        if (JSON.stringify(a) !== JSON.stringify(b)) changed += 1;
      }
      const last = history.at(-1)!;
      // By the last instant every message of the day is at least 72 h old: all are final.
      expect(FINAL).toContain(last.status);
      expect(last.error_message).not.toBeNull();
      expect("carrier_fees" in last).toBe(last.status === "delivered");
      expect(last.delivered_at !== null).toBe(last.status === "delivered");
      if (last.status === "rejected" || last.status === "expired") expect(last.charge).toBe("0.00");
      if (last.status === "rejected") expect(last.sent_at).toBeNull();
      if (last.status === "delivered") {
        expect(last.error_message).toBe("");
        expect(Date.parse(last.delivered_at!)).toBeGreaterThanOrEqual(Date.parse(last.sent_at!));
        expect(Date.parse(last.delivered_at!) - Date.parse(last.submitted_at)).toBeLessThanOrEqual(72 * HOUR);
        if (Date.parse(last.delivered_at!) - Date.parse(last.submitted_at) >= 24 * HOUR) lateFinals += 1;
      }
      for (const m of history.filter((h) => !FINAL.includes(h.status))) {
        expect(m.error_message).toBeNull();
        expect(m.delivered_at).toBeNull();
        expect("carrier_fees" in m).toBe(false);
        expect(m.charge).toBe(first.charge);
      }
    }
    expect(seen.size).toBeGreaterThan(100);
    expect(changed).toBeGreaterThan(10);
    expect(lateFinals).toBeGreaterThan(0);
    const finals: string[] = [...seen.values()].map((h) => h.at(-1)!.status);
    for (const status of FINAL)
      expect({ status, present: finals.includes(status) }).toEqual({ status, present: true });
  });

  test("exports every message of the range as listed now, both directions", async ({ sandboxes }) => {
    const sandbox = sandboxes.v2024;
    for (const account of [0, 1]) {
      const name = sandbox.world.accounts[account]!.name;
      const truth = await ndjsonLines(
        sandbox,
        `/_sandbox/truth/messages?account=${name}&from=2026-08-02&to=2026-08-04`,
      );
      const listed: string[] = [];
      for (const type of ["outbound", "inbound"]) {
        const { items } = await listAll(
          sandbox,
          `type=${type}&sent_after=2026-08-02&sent_before=2026-08-05`,
          { account },
        );
        listed.push(...items.map((m) => JSON.stringify(m)));
      }
      expect(truth.length).toBeGreaterThan(0);
      expect([...truth].sort()).toEqual([...listed].sort());
      // The clock (08-04 12:00) hides what was not submitted yet.
      const last = (
        await ndjson<Message>(
          sandbox,
          `/_sandbox/truth/messages?account=${name}&from=2026-08-04&to=2026-08-06`,
        )
      )
        .map((m) => m.submitted_at)
        .sort()
        .at(-1)!;
      expect(last < "2026-08-04T12:00:01Z").toBe(true);
    }
  });
});

describe("sandbox messages: determinism and faults", () => {
  test("answers byte-identical pages for the same seed and options", async ({ sandboxes }) => {
    const steps = [1, 2, 3].flatMap((page) =>
      ["outbound", "inbound"].map((type) => ({
        method: "GET",
        path: `/v3/messages?type=${type}&sent_after=2026-08-01&sent_before=2026-08-05&per_page=50&page=${page}`,
      })),
    );
    steps.push({
      method: "GET",
      path: "/_sandbox/truth/messages?account=sub-1",
      admin: true,
    } as (typeof steps)[number]);
    const a: string[] = [];
    const b: string[] = [];
    for (const step of steps) {
      a.push(await exchangeDigest(sandboxes.v2024, step));
      b.push(await exchangeDigest(sandboxes.twin, step));
    }
    expect(a).toEqual(b);
    expect(new Set(a).size).toBe(steps.length);
  });

  test("corrupts and drifts message rows; the truth keeps exactly the valid ones as served", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.faulty;
    const range = "account=master&from=2026-08-01&to=2026-08-04";
    const malformed = await ndjson<{
      stream: string;
      kind: string;
      rejected: boolean;
      raw: Record<string, unknown>;
    }>(sandbox, `/_sandbox/truth/messages/malformed?${range}`);
    const kinds = new Set(malformed.map((m) => m.kind));
    expect([...kinds].sort()).toEqual([
      "drift",
      "extra_field",
      "missing_field",
      "unknown_enum",
      "wrong_type",
    ]);
    for (const line of malformed) {
      expect(line.stream).toBe("messages");
      expect(line.rejected).toBe(!messageSchema.safeParse(line.raw).success);
      expect(line.rejected).toBe(!["drift", "extra_field"].includes(line.kind));
      if (line.kind === "unknown_enum") expect(line.raw.status).toBe("scheduled");
      expect("carrier_fees" in line.raw).toBe(false);
    }
    const truth = await ndjsonLines(sandbox, `/_sandbox/truth/messages?${range}`);
    const rejected = new Set(malformed.filter((m) => m.rejected).map((m) => JSON.stringify(m.raw)));
    const listed: string[] = [];
    for (const type of ["outbound", "inbound"]) {
      const pages = await listAllRaw(sandbox, `type=${type}&sent_after=2026-08-01&sent_before=2026-08-05`);
      listed.push(...pages);
    }
    expect([...truth].sort()).toEqual(listed.filter((row) => !rejected.has(row)).sort());
    expect(truth.length + rejected.size).toBe(listed.length);
  });
});

/** Every row of a message list as served (raw JSON text of each item), for faulty profiles. */
async function listAllRaw(sandbox: RunningSandbox, query: string): Promise<string[]> {
  const rows: string[] = [];
  for (let page = 1; ; page++) {
    const answer = await platform(sandbox, `/v3/messages?${query}&per_page=100&page=${page}`);
    expect(answer.status).toBe(200);
    const body = answer.body as { items: unknown[]; pagination: { total_pages: number } };
    rows.push(...body.items.map((item) => JSON.stringify(item)));
    if (page >= body.pagination.total_pages) return rows;
  }
}
