import { callTranscriptionSchema } from "@telecom-etl/platform/call-transcription.js";
import { cdrDetailSchema } from "@telecom-etl/platform/cdr.js";
import { ERROR_MESSAGES, errorBodySchema, pendingBodySchema } from "@telecom-etl/platform/common.js";
import { transcriptionSchema } from "@telecom-etl/platform/transcription.js";
import { validationResponseSchema } from "@telecom-etl/platform/validation.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
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
  it("serves every ready call transcription of the truth export under its CDR (2024 path)", async ({
    sandbox,
  }) => {
    const lines = await truth(sandbox, "transcriptions");
    expect(lines.length).toBeGreaterThan(10);
    const statuses = new Set<string>();
    for (const line of lines.slice(0, 40)) {
      const { status, body } = await get(sandbox, `/v1/cdr/${line.call_uuid}/transcription`);
      expect(status).toBe(200);
      expect(body).toEqual(line);
      statuses.add(callTranscriptionSchema.parse(body).status);
      // speech-analytics is for uploaded audio: a call's uuid is no request id there.
      expect((await get(sandbox, `/v1/speech-analytics/${line.call_uuid}`)).status).toBe(404);
    }
    expect(statuses.has("completed")).toBe(true);
  });

  it("answers 202 pending right after the call, then 200; 404 for calls without one", async ({ sandbox }) => {
    const [line] = await truth(sandbox, "transcriptions");
    const transcription = callTranscriptionSchema.parse(line);
    const ready = Date.parse(transcription.transcription_date);
    await setClock(sandbox, new Date(ready - 1000).toISOString());
    const pending = await get(sandbox, `/v1/cdr/${transcription.call_uuid}/transcription`);
    await setClock(sandbox, "2026-08-15T00:00:00Z");
    expect(pending.status).toBe(202);
    expect(pendingBodySchema.parse(pending.body)).toEqual({
      success: true,
      message: "The transcription is still pending",
    });
    const cdrs = await truth(sandbox, "cdrs");
    const without = cdrs.find((c) => c.disposition !== "answered")!;
    const missing = await get(sandbox, `/v1/cdr/${without.uuid}/transcription`);
    expect(missing.status).toBe(404);
    expect(errorBodySchema.parse(missing.body).message).toBe("Record not found");
    const detail = await get(sandbox, `/v1/cdr/${transcription.call_uuid}?show_transcription=true`);
    expect(cdrDetailSchema.parse(detail.body)).toMatchObject({ transcription: line });
  });

  it("serves uploaded files' transcriptions at speech-analytics by request id: 404 before upload, 202, then 200", async ({
    sandbox,
  }) => {
    const uploads = await truth(sandbox, "uploaded_transcriptions", "&from=2026-08-01&to=2026-08-14");
    // One upload per started week of the world (14 days: two per account).
    expect(uploads).toHaveLength(2);
    for (const upload of uploads) {
      const { status, body } = await get(sandbox, `/v1/speech-analytics/${upload.request_id}`);
      expect({ status, body }).toEqual({ status: 200, body: upload.transcription });
      expect(transcriptionSchema.parse(body).request_id).toBe(upload.request_id);
      await setClock(sandbox, new Date(Date.parse(String(upload.ready_at)) - 1000).toISOString());
      const pending = await get(sandbox, `/v1/speech-analytics/${upload.request_id}`);
      await setClock(sandbox, new Date(Date.parse(String(upload.submitted_at)) - 1000).toISOString());
      const before = await get(sandbox, `/v1/speech-analytics/${upload.request_id}`);
      await setClock(sandbox, "2026-08-15T00:00:00Z");
      expect([pending.status, before.status]).toEqual([202, 404]);
      // An upload's request id is no call: nothing under the CDR path.
      expect((await get(sandbox, `/v1/cdr/${upload.request_id}/transcription`)).status).toBe(404);
    }
  });

  it("answers 403 not provisioned on every transcription route when the account has no speech analytics", async ({
    sandbox,
    launchSandbox,
  }) => {
    const off = await launchSandbox({ seed: 4, days: 14, callsPerDay: 200, speechAnalytics: false });
    const [line] = await truth(sandbox, "transcriptions");
    const [upload] = await truth(sandbox, "uploaded_transcriptions", "&from=2026-08-01&to=2026-08-14");
    for (const path of [
      `/v1/cdr/${line!.call_uuid}/transcription`,
      `/v1/speech-analytics/${upload!.request_id}`,
    ]) {
      const answer = await get(off, path);
      expect({ path, status: answer.status }).toEqual({ path, status: 403 });
      expect(errorBodySchema.parse(answer.body).message).toBe(ERROR_MESSAGES.forbidden);
    }
    // The CDR itself is still served; it carries no transcription.
    const detail = await get(off, `/v1/cdr/${line!.call_uuid}?show_transcription=true`);
    expect(cdrDetailSchema.parse(detail.body)).toMatchObject({ transcription: null });
    expect((await (await fetch(`${off.url}/_sandbox/world`)).json()) as object).toMatchObject({
      speech_analytics: false,
    });
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
