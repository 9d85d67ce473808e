import { callTranscriptionSchema } from "@telecom-etl/platform/call-transcription.js";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { type Cdr, cdrSchema } from "@telecom-etl/platform/cdr.js";
import { shortLinkMetricSchema } from "@telecom-etl/platform/short-link-metric.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
import { answered } from "../helpers/catalogue-schemas.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/**
 * The world's CDRs follow its settings (issue 3, "The world"), read from the truth export and the
 * platform API: charge = per_minute x started minutes, forward_fee exactly on received calls
 * forwarded to PSTN, answered_by exactly on answered calls of trunks with machine detection,
 * recordings exactly where recording is on, transcriptions exactly for answered calls at or above
 * the trunk's or number's threshold with transcription on (some of them failed).
 */

type Line = Cdr & { direction: "placed" | "received" };

async function ndjson(sandbox: RunningSandbox, path: string): Promise<Record<string, unknown>[]> {
  const text = await (await fetch(`${sandbox.url}${path}`)).text();
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function micros(text: string | null | undefined): number {
  if (text === null || text === undefined) return 0;
  const [whole, frac = ""] = text.split(".");
  return Number(whole) * 1_000_000 + Number(frac.padEnd(6, "0"));
}

/** The master's CDRs of the truth export, with their direction. */
const it = fixtureTest.extend(
  "cdrs",
  { scope: "file" },
  async ({ sandbox }): Promise<Line[]> =>
    (await ndjson(sandbox, "/_sandbox/truth/cdrs?account=master")).map((line) => ({
      ...cdrSchema.parse(line),
      direction: line.direction as Line["direction"],
    })),
);
// Seed 68: the master's trunks and numbers mix every setting (detection, recording,
// transcription on and off, PSTN forwarding). The clock is past every late CDR and transcription.
it.override({
  sandboxOptions: { seed: 68, days: 8, callsPerDay: 400, accounts: 2, now: "2026-08-12T00:00:00Z" },
});

describe("sandbox world: CDRs follow the account's settings", () => {
  it("prices every call: charge = per_minute x started minutes, null when failed", ({ cdrs }) => {
    expect(cdrs.length).toBeGreaterThan(2000);
    for (const cdr of cdrs) {
      if (cdr.disposition === "failed") {
        expect([cdr.per_minute, cdr.charge]).toEqual([null, null]);
        continue;
      }
      expect(micros(cdr.charge)).toBe(micros(cdr.per_minute) * Math.ceil(cdr.duration / 60));
      if (cdr.disposition !== "answered") expect(cdr.duration).toBe(0);
    }
    const dispositions = new Set(cdrs.map((c) => c.disposition));
    expect(dispositions).toEqual(new Set(["answered", "noanswer", "busy", "failed"]));
  });

  it("carries forward_fee exactly on received calls to numbers forwarded to PSTN", ({ sandbox, cdrs }) => {
    const master = sandbox.world.accounts[0]!;
    const pstn = new Set(master.dids.filter((d) => d.forward.kind === "pstn").map((d) => d.number));
    expect(pstn.size).toBeGreaterThan(0);
    for (const cdr of cdrs) {
      const forwarded = cdr.direction === "received" && pstn.has(cdr.to);
      expect(cdr.forward_fee !== undefined).toBe(forwarded);
      if (forwarded) expect(micros(cdr.forward_fee)).toBe(12_000 * Math.ceil(cdr.duration / 60));
      if (cdr.direction === "received") {
        const did = master.dids.find((d) => d.number === cdr.to)!;
        expect(cdr.destination).toBe(did.forward.target);
        expect(cdr.sip_trunk).toBeNull();
      } else expect(master.trunks.map((t) => t.name)).toContain(cdr.sip_trunk);
    }
  });

  it("sets answered_by exactly on answered parent calls of trunks with machine detection", ({
    sandbox,
    cdrs,
  }) => {
    const master = sandbox.world.accounts[0]!;
    const detecting = new Set(master.trunks.filter((t) => t.machineDetection).map((t) => t.name));
    expect(detecting.size).toBeGreaterThan(0);
    expect(detecting.size).toBeLessThan(master.trunks.length);
    for (const cdr of cdrs) {
      const expected =
        cdr.disposition === "answered" && cdr.parent_uuid === null && detecting.has(cdr.sip_trunk ?? "");
      expect(cdr.answered_by !== null).toBe(expected);
    }
    expect(cdrs.some((c) => c.answered_by === "machine")).toBe(true);
    expect(cdrs.some((c) => c.parent_uuid !== null)).toBe(true);
    const uuids = new Set(cdrs.map((c) => c.uuid));
    for (const child of cdrs.filter((c) => c.parent_uuid !== null))
      expect(uuids.has(child.parent_uuid!)).toBe(true);
  });

  it("records exactly the answered calls where recording is on, one recording per call", async ({
    sandbox,
    cdrs,
  }) => {
    const master = sandbox.world.accounts[0]!;
    // Recordings are dated by the call's end: a call of the world's last day may end the day after.
    const lastEnd = new Date(sandbox.world.endMs).toISOString().slice(0, 10);
    const recordings = await ndjson(sandbox, `/_sandbox/truth/recordings?account=master&to=${lastEnd}`);
    const recorded = recordings.map((r) => r.call_uuid as string);
    expect(new Set(recordings.map((r) => r.id)).size).toBe(recordings.length);
    const expected = cdrs
      .filter((cdr) => {
        if (cdr.disposition !== "answered") return false;
        if (cdr.direction === "placed") return master.trunks.find((t) => t.name === cdr.sip_trunk)!.recording;
        return master.dids.find((d) => d.number === cdr.to)!.recording;
      })
      .map((c) => c.uuid);
    expect(expected.length).toBeGreaterThan(0);
    expect(recorded.sort()).toEqual(expected.sort());
  });

  it("transcribes exactly the answered calls at or above the threshold where transcription is on; some fail", async ({
    sandbox,
    cdrs,
  }) => {
    const master = sandbox.world.accounts[0]!;
    const transcriptions = (await ndjson(sandbox, "/_sandbox/truth/transcriptions?account=master")).map((t) =>
      callTranscriptionSchema.parse(t),
    );
    const expected = cdrs
      .filter((cdr) => {
        if (cdr.disposition !== "answered" || cdr.parent_uuid !== null) return false;
        const owner =
          cdr.direction === "placed"
            ? master.trunks.find((t) => t.name === cdr.sip_trunk)!
            : master.dids.find((d) => d.number === cdr.to)!;
        return owner.transcription && cdr.duration >= owner.transcriptionThreshold;
      })
      .map((c) => c.uuid);
    expect(transcriptions.map((t) => t.call_uuid).sort()).toEqual(expected.sort());
    const failed = transcriptions.filter((t) => t.status === "failed");
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length / transcriptions.length).toBeLessThan(0.1);
    for (const t of failed) expect(t).toMatchObject({ turns: null, charge: "0.00", language: null });
    for (const t of transcriptions.filter((x) => x.status === "completed")) {
      const cdr = cdrs.find((c) => c.uuid === t.call_uuid)!;
      expect(micros(t.charge)).toBe(24_000 * Math.ceil(cdr.duration / 60));
      expect(t.turns!.length).toBeGreaterThan(0);
      for (const turn of t.turns!) expect(turn.e).toBeLessThanOrEqual(cdr.duration * 1000);
    }
  });

  it("filters short-link metrics by phone and by utm_campaign", async ({ sandbox }) => {
    const key = sandbox.world.accounts[0]!.apiKey;
    const read = async (query: string) =>
      answered(CATALOGUE.short_link_metrics)
        .parse(
          await (
            await fetch(
              `${sandbox.url}/v1/short-links/metrics?from=2026-08-02&to=2026-08-02&per_page=100${query}`,
              {
                headers: { authorization: `Bearer ${key}` },
              },
            )
          ).json(),
        )
        .metrics.map((m) => shortLinkMetricSchema.parse(m));
    const all = await read("");
    expect(all.length).toBeLessThan(100);
    const phone = all[0]!.phone;
    const campaign = all[0]!.utm_campaign;
    const byPhone = await read(`&phone=${phone}`);
    expect(byPhone.length).toBeGreaterThan(0);
    expect(byPhone).toEqual(all.filter((m) => m.phone === phone));
    const both = await read(`&phone=${phone}&utm_campaign=${campaign}`);
    expect(both).toEqual(all.filter((m) => m.phone === phone && m.utm_campaign === campaign));
    expect(new Set(all.map((m) => m.phone)).size).toBeGreaterThan(1);
  });
});
