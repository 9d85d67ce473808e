import type { RunningSandbox, SandboxOptions } from "@telecom-etl/sandbox";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { exchangeDigest } from "./sandbox-client.js";

/**
 * Same seed and options → byte-identical answers (status, headers that matter, body bytes), with
 * the hostile fault profile on, over every kind of endpoint and the admin API; another seed →
 * another world.
 */

const OPTIONS: SandboxOptions = {
  seed: 23,
  days: 12,
  callsPerDay: 150,
  now: "2026-08-14T06:00:00Z",
  faults: { base: "hostile", hangMs: 0, latencySpikeMs: 0 },
};

interface Step {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  /** Admin requests carry no key. */
  readonly admin?: boolean;
}

async function run(sandbox: RunningSandbox, steps: readonly Step[]): Promise<string[]> {
  const out: string[] = [];
  for (const step of steps) out.push(await exchangeDigest(sandbox, step));
  return out;
}

/** The requests the tests replay: every route, read from a probe sandbox's world (ids, tokens, brands). */
async function stepsFor(probe: RunningSandbox): Promise<Step[]> {
  const account = probe.world.accounts[0]!;
  const truth = await (
    await fetch(`${probe.url}/_sandbox/truth/transcriptions?account=master&from=2026-08-02&to=2026-08-02`)
  ).text();
  const transcriptionIds = truth
    .split("\n")
    .filter((l) => l !== "")
    .slice(0, 5)
    .map((l) => (JSON.parse(l) as { call_uuid: string }).call_uuid);
  const steps: Step[] = [{ method: "GET", path: "/_sandbox/world", admin: true }];
  for (const day of ["2026-08-02", "2026-08-03", "2026-08-13"]) {
    for (const type of ["placed", "received"]) {
      // Every page twice: a retry of the same request meets its own (seeded) faults.
      for (let page = 1; page <= 4; page++) {
        const path = `/v1/cdr?from=${day}&to=${day}&type=${type}&per_page=30&page=${page}`;
        steps.push({ method: "GET", path }, { method: "GET", path });
      }
    }
  }
  for (const id of transcriptionIds) {
    steps.push({ method: "GET", path: `/v1/cdr/${id}/transcription` });
    steps.push({ method: "GET", path: `/v1/cdr/${id}?show_transcription=true` });
  }
  for (let page = 1; page <= 3; page++)
    steps.push({ method: "GET", path: `/v1/short-links/metrics?from=2026-08-01&to=2026-08-12&page=${page}` });
  for (const type of ["outbound", "inbound"]) {
    for (let page = 1; page <= 3; page++) {
      const path = `/v3/messages?type=${type}&sent_after=2026-08-02&sent_before=2026-08-04&per_page=40&page=${page}`;
      steps.push({ method: "GET", path }, { method: "GET", path });
    }
  }
  steps.push(
    { method: "GET", path: "/v1/billing/invoices" },
    { method: "GET", path: `/v1/validation/${account.validations[1]!.token}` },
    { method: "GET", path: `/v3/10dlc/brands/${account.brands[0]!.brandId}/appeals` },
    { method: "GET", path: "/v1/buy/countries/1/cities" },
    { method: "GET", path: "/v1/buy/countries/1/cities/103/dids?per_page=7&page=2" },
    { method: "GET", path: `/v1/sub-organizations/${probe.world.accounts[1]!.id}` },
    { method: "GET", path: "/v1/calls/webhooks" },
    { method: "GET", path: "/v1/trunks" },
    { method: "GET", path: "/v1/mydids?per_page=2&page=2" },
    { method: "GET", path: "/v3/10dlc/brands" },
    { method: "POST", path: "/v1/api-keys", body: { label: "det", permissions: { calls: "read" } } },
    { method: "POST", path: "/v2/webrtc/tokens", body: { sip_trunk: account.trunks[0]!.name, ttl: 60 } },
    { method: "PUT", path: `/v1/mydids/${account.dids[0]!.id}`, body: { transcription_threshold: 9 } },
  );
  for (const stream of [
    "cdrs",
    "cdrs/malformed",
    "cdrs/late",
    "short_link_metrics",
    "transcriptions",
    "validations",
    "recordings",
    "invoices",
    "messages",
    "messages/malformed",
    "transcription_requests",
    "sip_trunks",
    "numbers",
    "brands",
    "brand_appeals",
    "call_webhooks",
    "sub_accounts",
  ]) {
    steps.push({
      method: "GET",
      path: `/_sandbox/truth/${stream}?account=master&from=2026-08-01&to=2026-08-13`,
      admin: true,
    });
  }
  steps.push({ method: "GET", path: "/_sandbox/truth/number_catalog?country=1", admin: true });
  steps.push({ method: "GET", path: "/_sandbox/stats", admin: true });
  return steps;
}

/** The file's sandbox is the probe; `steps` are built from it once for the file. */
const it = fixtureTest.extend("steps", { scope: "file" }, ({ sandbox }) => stepsFor(sandbox));
it.override({ sandboxOptions: OPTIONS });

describe("sandbox determinism", () => {
  it("gives byte-identical answers for the same seed and options, faults included", async ({
    steps,
    launchSandbox,
  }) => {
    const a = await launchSandbox(OPTIONS);
    const b = await launchSandbox(OPTIONS);
    const first = await run(a, steps);
    expect(await run(b, steps)).toEqual(first);
    // The hostile profile really interfered: errors, resets and answers without a body occur.
    const statuses = new Set(first.map((s) => s.split(" ")[0]));
    expect(statuses.size).toBeGreaterThan(3);
    expect(first.filter((s) => s.startsWith("200")).length).toBeGreaterThan(steps.length / 2);
  });

  it("meets the same faults whatever the concurrency when requests are distinct", async ({
    steps,
    launchSandbox,
  }) => {
    const reads = steps.filter(
      (s, i) => s.method === "GET" && !s.admin && steps.findIndex((t) => t.path === s.path) === i,
    );
    const a = await launchSandbox(OPTIONS);
    const b = await launchSandbox(OPTIONS);
    const sequential = await run(a, reads);
    const concurrent: string[] = new Array(reads.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        for (let i = next++; i < reads.length; i = next++) concurrent[i] = await exchangeDigest(b, reads[i]!);
      }),
    );
    expect(concurrent).toEqual(sequential);
  });

  it("builds another world from another seed", async ({ launchSandbox }) => {
    const a = await launchSandbox({ ...OPTIONS, faults: "none" });
    const c = await launchSandbox({ ...OPTIONS, faults: "none", seed: 24 });
    for (const path of [
      "/_sandbox/world",
      "/v1/cdr?from=2026-08-02&to=2026-08-02&type=placed",
      "/v1/cdr?from=2026-08-02&to=2026-08-02&type=received",
      "/v1/short-links/metrics?from=2026-08-01&to=2026-08-12",
      "/v1/buy/countries/1/cities/103/dids",
    ]) {
      const step = { method: "GET", path, admin: path.startsWith("/_sandbox") };
      const [x, y] = [await exchangeDigest(a, step), await exchangeDigest(c, step)];
      expect(x.split(" ")[0]).toBe("200");
      expect(y.split(" ")[0]).toBe("200");
      expect(y).not.toBe(x);
    }
    expect(c.world.accounts.map((acc) => acc.apiKey)).not.toEqual(a.world.accounts.map((acc) => acc.apiKey));
  });
});
