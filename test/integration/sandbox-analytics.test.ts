import { cdrDetailSchema } from "../../src/platform/cdr.js";
import { errorBodySchema, pendingBodySchema } from "../../src/platform/common.js";
import { transcriptionSchema } from "../../src/platform/transcription.js";
import { validationResponseSchema } from "../../src/platform/validation.js";
import type { RunningSandbox } from "../../src/sandbox/index.js";
import { describe, expect, it } from "../helpers/fixtures.js";

async function get(sandbox: RunningSandbox, path: string): Promise<{ status: number; body: unknown }> {
  const key = sandbox.world.accounts[0]!.apiKey;
  const res = await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: await res.json() };
}

async function truth(
  sandbox: RunningSandbox,
  stream: string,
  range = "&from=2026-08-01&to=2026-08-02",
): Promise<Record<string, unknown>[]> {
  const text = await (await fetch(`${sandbox.url}/_sandbox/truth/${stream}?account=master${range}`)).text();
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function setClock(sandbox: RunningSandbox, iso: string): Promise<void> {
  await fetch(`${sandbox.url}/_sandbox/clock`, { method: "POST", body: JSON.stringify({ now: iso }) });
}

it.override({ sandboxOptions: { seed: 4, days: 14, callsPerDay: 200 } });

describe("sandbox transcriptions", () => {
  it("serves every ready transcription of the truth export with the platform schema", async ({ sandbox }) => {
    const lines = await truth(sandbox, "transcriptions");
    expect(lines.length).toBeGreaterThan(10);
    const statuses = new Set<string>();
    for (const line of lines.slice(0, 40)) {
      const { status, body } = await get(sandbox, `/v1/speech-analytics/${line.request_id}`);
      expect(status).toBe(200);
      expect(body).toEqual(line);
      statuses.add(transcriptionSchema.parse(body).status);
    }
    expect(statuses.has("completed")).toBe(true);
  });

  it("answers 202 pending right after the call, then 200; 404 for calls without one", async ({ sandbox }) => {
    const [line] = await truth(sandbox, "transcriptions");
    const transcription = transcriptionSchema.parse(line);
    const ready = Date.parse(transcription.transcription_date);
    await setClock(sandbox, new Date(ready - 1000).toISOString());
    const pending = await get(sandbox, `/v1/speech-analytics/${transcription.request_id}`);
    await setClock(sandbox, "2026-08-15T00:00:00Z");
    expect(pending.status).toBe(202);
    expect(pendingBodySchema.parse(pending.body)).toEqual({
      success: true,
      message: "The transcription is still pending",
    });
    const cdrs = await truth(sandbox, "cdrs");
    const without = cdrs.find((c) => c.disposition !== "answered")!;
    const missing = await get(sandbox, `/v1/speech-analytics/${without.uuid}`);
    expect(missing.status).toBe(404);
    expect(errorBodySchema.parse(missing.body).message).toBe("Record not found");
    const detail = await get(sandbox, `/v1/cdr/${transcription.request_id}?show_transcription=true`);
    expect(cdrDetailSchema.parse(detail.body)).toMatchObject({ transcription: line });
  });
});

describe("sandbox validations and recordings", () => {
  it("moves a validation from in progress to success over sandbox time", async ({ sandbox }) => {
    const account = sandbox.world.accounts[0]!;
    const request = account.validations[0]!;
    await setClock(sandbox, new Date(request.createdAtMs + request.processingMs / 2).toISOString());
    const halfway = validationResponseSchema.parse(
      (await get(sandbox, `/v1/validation/${request.token}`)).body,
    );
    await setClock(sandbox, new Date(request.createdAtMs + request.processingMs).toISOString());
    const done = validationResponseSchema.parse((await get(sandbox, `/v1/validation/${request.token}`)).body);
    await setClock(sandbox, new Date(request.createdAtMs - 1).toISOString());
    const early = await get(sandbox, `/v1/validation/${request.token}`);
    await setClock(sandbox, "2026-08-15T00:00:00Z");
    expect(halfway.status).toBe("in progress");
    expect(halfway.pending).toBeGreaterThan(0);
    expect(halfway.items.length + halfway.pending).toBe(request.count);
    expect(done).toMatchObject({ status: "success", pending: 0, count: request.count });
    expect(done.items.slice(0, halfway.items.length)).toEqual(halfway.items);
    for (const item of done.items) expect(item.error_code).toMatch(/^\d{3}$/);
    expect(early.status).toBe(404);
    expect(early.body).toEqual({ success: false, message: "Record not found", error_code: "011" });
    const lines = await truth(sandbox, "validations", "");
    expect(lines.map((l) => l.token)).toEqual(account.validations.map((v) => v.token));
  });

  it("lists recordings of visible CDRs, matching the single-CDR recording_url", async ({ sandbox }) => {
    const lines = await truth(sandbox, "recordings");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines.slice(0, 10)) {
      const detail = cdrDetailSchema.parse((await get(sandbox, `/v1/cdr/${line.call_uuid}`)).body);
      expect(detail.recording_url).toBe(line.url);
    }
  });
});
