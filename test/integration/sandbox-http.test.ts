import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { cdrDetailSchema, cdrSchema } from "@telecom-etl/platform/cdr.js";
import { ERROR_MESSAGES, errorBodySchema } from "@telecom-etl/platform/common.js";
import { invoiceSchema } from "@telecom-etl/platform/invoice.js";
import { shortLinkMetricSchema } from "@telecom-etl/platform/short-link-metric.js";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { answered, published } from "../helpers/catalogue-schemas.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

interface WorldJson {
  accounts: { name: string; api_key: string }[];
  clock: { now: string };
  invoice_discrepancies: { invoice_id: number }[];
}

async function admin<T>(sandbox: RunningSandbox, path: string): Promise<T> {
  return (await (await fetch(`${sandbox.url}${path}`)).json()) as T;
}

async function get(
  sandbox: RunningSandbox,
  path: string,
  key: string | null = sandbox.world.accounts[0]!.apiKey,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${sandbox.url}${path}`, {
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : JSON.parse(text) };
}

/** The master account's key. */
const it = fixtureTest.extend(
  "masterKey",
  { scope: "file" },
  ({ sandbox }) => sandbox.world.accounts[0]!.apiKey,
);
it.override({ sandboxOptions: { port: 0, seed: 11, start: "2026-08-01", days: 40, callsPerDay: 120 } });

describe("sandbox over HTTP: CDRs", () => {
  it("lists CDRs with the platform's envelope, rows valid, per_page default 25", async ({ sandbox }) => {
    const { status, body } = await get(sandbox, "/v1/cdr?from=2026-08-03&to=2026-08-03&type=placed");
    expect(status).toBe(200);
    const parsed = answered(CATALOGUE.cdrs).parse(body);
    expect(parsed.pagination.per_page).toBe(25);
    expect(parsed.pagination.current_page).toBe(1);
    expect(parsed.items).toHaveLength(25);
    expect(parsed.pagination.total_pages).toBe(Math.ceil(parsed.pagination.total / 25));
    for (const item of parsed.items) {
      const cdr = cdrSchema.parse(item);
      expect(cdr.date!.slice(0, 10)).toBe("2026-08-03");
      expect(cdr.sip_trunk).not.toBeNull();
      expect(item).not.toHaveProperty("recording_url");
    }
  });

  it("pages through a window and returns every row exactly once, matching the truth export", async ({
    sandbox,
  }) => {
    const uuids: string[] = [];
    let page = 1;
    let totalPages = 1;
    do {
      const { body } = await get(
        sandbox,
        `/v1/cdr?from=2026-08-05&to=2026-08-06&type=received&per_page=500&page=${page}`,
      );
      const parsed = answered(CATALOGUE.cdrs).parse(body);
      expect(parsed.pagination.per_page).toBe(100);
      totalPages = parsed.pagination.total_pages;
      for (const item of parsed.items) uuids.push(cdrSchema.parse(item).uuid!);
      page += 1;
    } while (page <= totalPages);
    expect(new Set(uuids).size).toBe(uuids.length);
    const truth = await fetch(
      `${sandbox.url}/_sandbox/truth/cdrs?account=master&from=2026-08-05&to=2026-08-06`,
    );
    const lines = (await truth.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const received = lines.filter((line) => line.direction === "received").map((line) => line.uuid);
    expect(received.sort()).toEqual([...uuids].sort());
  });

  it("filters by disposition, from_search, sip_trunk and uuid", async ({ sandbox }) => {
    const { body } = await get(
      sandbox,
      "/v1/cdr?from=2026-08-01&to=2026-08-02&type=placed&disposition=busy&per_page=100",
    );
    const parsed = answered(CATALOGUE.cdrs).parse(body);
    expect(parsed.items.length).toBeGreaterThan(0);
    for (const item of parsed.items) expect(cdrSchema.parse(item).disposition).toBe("busy");
    const first = cdrSchema.parse(parsed.items[0]);
    const byUuid = answered(CATALOGUE.cdrs).parse(
      (await get(sandbox, `/v1/cdr?from=2026-08-01&to=2026-08-02&type=placed&uuid=${first.uuid}`)).body,
    );
    expect(byUuid.items).toEqual([parsed.items[0]]);
    const trunk = sandbox.world.accounts[0]!.trunks[0]!.name;
    const byTrunk = answered(CATALOGUE.cdrs).parse(
      (
        await get(
          sandbox,
          `/v1/cdr?from=2026-08-01&to=2026-08-01&type=placed&sip_trunk=${trunk}&per_page=100`,
        )
      ).body,
    );
    for (const item of byTrunk.items) expect(cdrSchema.parse(item).sip_trunk).toBe(trunk);
    const search = first.to.slice(2, 7);
    const bySearch = answered(CATALOGUE.cdrs).parse(
      (await get(sandbox, `/v1/cdr?from=2026-08-01&to=2026-08-02&type=placed&to_search=${search}`)).body,
    );
    expect(bySearch.items.length).toBeGreaterThan(0);
    for (const item of bySearch.items) expect(cdrSchema.parse(item).to).toContain(search);
  });

  it("returns one CDR with recording_url, and 404 for unknown or other accounts' uuids", async ({
    sandbox,
  }) => {
    const list = answered(CATALOGUE.cdrs).parse(
      (await get(sandbox, "/v1/cdr?from=2026-08-02&to=2026-08-02&type=placed")).body,
    );
    const row = cdrSchema.parse(list.items[3]);
    const { status, body } = await get(sandbox, `/v1/cdr/${row.uuid}`);
    expect(status).toBe(200);
    const detail = cdrDetailSchema.parse(body);
    expect({ ...detail, recording_url: undefined }).toEqual({ ...row, recording_url: undefined });
    const other = await get(sandbox, `/v1/cdr/${row.uuid}`, sandbox.world.accounts[1]!.apiKey);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ success: false, message: ERROR_MESSAGES.notFound });
    expect((await get(sandbox, "/v1/cdr/00000000-0000-4000-8000-000000000000")).status).toBe(404);
  });

  it("answers 400/422 with the platform's message for bad parameters", async ({ sandbox }) => {
    const missing = await get(sandbox, "/v1/cdr?to=2026-08-02&type=placed");
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ success: false, message: "Missing or invalid parameter from" });
    const badType = await get(sandbox, "/v1/cdr?from=2026-08-01&to=2026-08-02&type=sideways");
    expect(badType.status).toBe(422);
    expect(badType.body).toEqual({ success: false, message: "Missing or invalid parameter type" });
    const badPage = await get(sandbox, "/v1/cdr?from=2026-08-01&to=2026-08-02&type=placed&per_page=0");
    expect(badPage.status).toBe(400);
    expect(errorBodySchema.parse(badPage.body).message).toBe("Missing or invalid parameter per_page");
  });
});

describe("sandbox over HTTP: auth", () => {
  it("answers 401 without a key or with an unknown key", async ({ sandbox }) => {
    for (const key of [null, "0123456789abcdef0123456789abcdef"]) {
      const { status, body } = await get(sandbox, "/v1/billing/invoices", key);
      expect(status).toBe(401);
      expect(body).toEqual({ success: false, error: true, message: "Unauthorized" });
    }
  });

  it("accepts the deprecated appid query parameter", async ({ sandbox, masterKey }) => {
    const { status } = await get(sandbox, `/v1/billing/invoices?appid=${masterKey}`, null);
    expect(status).toBe(200);
  });

  it("answers 404 for an unknown path", async ({ sandbox }) => {
    const { status, body } = await get(sandbox, "/v1/nothing-here");
    expect(status).toBe(404);
    expect(body).toEqual({ success: false, message: "Record not found" });
  });
});

describe("sandbox over HTTP: short links and invoices", () => {
  it("lists short-link metrics filtered by campaign", async ({ sandbox }) => {
    const all = answered(CATALOGUE.short_link_metrics).parse(
      (await get(sandbox, "/v1/short-links/metrics?from=2026-08-01&to=2026-08-03&per_page=100")).body,
    );
    expect(all.metrics.length).toBeGreaterThan(0);
    const campaign = shortLinkMetricSchema.parse(all.metrics[0]).utm_campaign;
    const filtered = answered(CATALOGUE.short_link_metrics).parse(
      (
        await get(
          sandbox,
          `/v1/short-links/metrics?from=2026-08-01&to=2026-08-03&per_page=100&utm_campaign=${campaign}`,
        )
      ).body,
    );
    expect(filtered.metrics.length).toBeGreaterThan(0);
    for (const m of filtered.metrics) {
      const metric = shortLinkMetricSchema.parse(m);
      expect(metric.utm_campaign).toBe(campaign);
      expect(metric.created_at).toMatch(/^2026-08-0[1-3] \d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it("lists issued invoices newest first with is_empty", async ({ sandbox }) => {
    const { status, body } = await get(sandbox, "/v1/billing/invoices");
    expect(status).toBe(200);
    const parsed = published(CATALOGUE.invoices).parse(body);
    expect(parsed.is_empty).toBe(false);
    const invoices = parsed.invoices.map((i) => invoiceSchema.parse(i));
    expect(invoices.map((i) => i.from_date)).toEqual(["2026-08-01"]);
    const charges = await admin<{ total: string }>(sandbox, "/_sandbox/charges?account=master&month=2026-08");
    const world = await admin<WorldJson>(sandbox, "/_sandbox/world");
    const discrepancy = world.invoice_discrepancies.find((d) => d.invoice_id === invoices[0]!.id);
    if (!discrepancy) expect(invoices[0]!.amount).toBe(charges.total);
    else expect(invoices[0]!.amount).not.toBe(charges.total);
  });
});

describe("sandbox admin API", () => {
  it("exposes the accounts with names and keys", async ({ sandbox, masterKey }) => {
    const world = await admin<WorldJson>(sandbox, "/_sandbox/world");
    expect(world.accounts.map((a) => a.name)).toEqual(["master", "sub-1", "sub-2"]);
    expect(world.accounts[0]!.api_key).toBe(masterKey);
    expect(world.clock.now).toBe("2026-09-10T00:00:00.000Z");
  });

  it("refuses bad admin requests", async ({ sandbox }) => {
    const status = async (path: string, body?: string) =>
      (await fetch(`${sandbox.url}${path}`, body === undefined ? {} : { method: "POST", body })).status;
    expect(await status("/_sandbox/truth/cdrs")).toBe(400);
    expect(await status("/_sandbox/truth/cdrs?account=nobody")).toBe(404);
    expect(await status("/_sandbox/truth/calls?account=master")).toBe(404);
    expect(await status("/_sandbox/truth/invoices/late?account=master")).toBe(404);
    expect(await status("/_sandbox/truth/cdrs?account=master&from=2026-13-01")).toBe(400);
    expect(await status("/_sandbox/clock", '{"now":"someday"}')).toBe(400);
    expect(await status("/_sandbox/clock", '{"advance":"24 hours"}')).toBe(400);
    expect(await status("/_sandbox/clock", "{}")).toBe(400);
    expect(await status("/_sandbox/charges?account=master&month=1999-01")).toBe(400);
    expect(await status("/_sandbox/nothing")).toBe(404);
    const world = await admin<WorldJson>(sandbox, "/_sandbox/world");
    expect(world.clock.now).toBe("2026-09-10T00:00:00.000Z");
  });

  it("moves the clock: a window gains exactly its late rows", async ({ launchSandbox }) => {
    const local = await launchSandbox({
      seed: 5,
      days: 3,
      callsPerDay: 300,
      now: "2026-08-03T03:00:00Z",
      lateShare: 0.1,
    });
    const truth = async (suffix = "") =>
      (
        await (
          await fetch(
            `${local.url}/_sandbox/truth/cdrs${suffix}?account=master&from=2026-08-02&to=2026-08-02`,
          )
        ).text()
      )
        .trim()
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l));
    const before = await truth();
    const late = await truth("/late");
    const hidden = late.filter((l) => !l.visible);
    expect(hidden.length).toBeGreaterThan(0);
    const advanced = await fetch(`${local.url}/_sandbox/clock`, {
      method: "POST",
      body: JSON.stringify({ advance: "PT72H" }),
    });
    expect(await advanced.json()).toEqual({ now: "2026-08-06T03:00:00.000Z", real: false });
    const after = await truth();
    const beforeIds = new Set(before.map((l) => l.uuid));
    const gained = after
      .filter((l) => !beforeIds.has(l.uuid))
      .map((l) => l.uuid)
      .sort();
    expect(gained).toEqual(hidden.map((l) => l.uuid).sort());
  });

  it("serves byte-identical responses for the same seed and options", async ({
    sandbox,
    masterKey,
    launchSandbox,
  }) => {
    const twin = await launchSandbox({ port: 0, seed: 11, start: "2026-08-01", days: 40, callsPerDay: 120 });
    for (const path of [
      "/v1/cdr?from=2026-08-01&to=2026-08-09&type=placed&page=3",
      "/v1/billing/invoices",
      "/v1/short-links/metrics?from=2026-08-01&to=2026-08-02",
    ]) {
      const a = await (
        await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${masterKey}` } })
      ).text();
      const b = await (
        await fetch(`${twin.url}${path}`, { headers: { authorization: `Bearer ${masterKey}` } })
      ).text();
      expect(b).toBe(a);
    }
  });
});
