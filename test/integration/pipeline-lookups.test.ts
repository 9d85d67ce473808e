import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import type { EtlConfig } from "../../src/config/config.js";
import { trackIds } from "../../src/warehouse/state/lookup-candidates.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { runAt, sandboxConfig, setSandboxClock, truthRecords } from "./pipeline-harness.js";
import { expectedFromTruth, landedRows } from "./truth-oracle.js";

/**
 * Issue "every stream", lookups: a call's transcription pending at one run is loaded by a later
 * one; an id the platform has nothing for (404) is never asked again; a run with no new calls asks
 * nothing about final ids; a pending id older than the age limit expires; a validation in progress
 * is polled until it is done, its results upserted as they appear.
 */
const START = "2026-08-01";

/** The CDR streams plus the dimensions and one lookup, for the sandbox's one account. */
function lookupConfig(
  sandbox: RunningSandbox,
  lookup: string,
  overrides: Partial<EtlConfig> = {},
): EtlConfig {
  const base = sandboxConfig(sandbox, { transcriptionMaxAgeDays: 30, ...overrides });
  return {
    ...base,
    accounts: base.accounts.map((a) => ({ ...a, streams: ["cdrs", "sip_trunks", "numbers", lookup] })),
  };
}

/** Tracked ids of `kind` by state, and each id's attempts. */
async function tracked(db: TestDatabase, kind: string) {
  const rows = await sql<{ external_id: string; status: string; attempts: number }>`
    SELECT external_id, status, attempts FROM etl.tracked_requests WHERE kind = ${kind}`.execute(
    db.warehouse.db,
  );
  const byState = (state: string) =>
    new Set(rows.rows.filter((r) => r.status === state).map((r) => r.external_id));
  return { rows: rows.rows, byState };
}

/** Requests the sandbox answered on `route` so far. */
async function routeRequests(sandbox: RunningSandbox, route: string): Promise<number> {
  const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
    routes: Record<string, Record<string, number>>;
  };
  return Object.values(stats.routes[route] ?? {}).reduce((a, b) => a + b, 0);
}

/** Where the loader asks a call's transcription (revision 2024): under its CDR. */
const CALL_TRANSCRIPTION = "GET /v1/cdr/{uuid}/transcription";
const SPEECH_ANALYTICS = "GET /v1/speech-analytics/{uuid}";

describe("lookups ask each id once per state change", () => {
  it("pending transcriptions load on a later run; 404s and final ones are never asked again", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 81,
      start: START,
      days: 3,
      accounts: 1,
      callsPerDay: 600,
      lateShare: 0,
      now: "2026-08-03T17:00:00Z",
    });
    const db = await createDatabase();
    const config = lookupConfig(sandbox, "transcriptions");
    const first = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(first.exitCode).toBe(0);
    // Pending now: exactly the calls whose transcription the platform is still making.
    const requests = await truthRecords(sandbox, "transcription_requests", "master", {
      from: START,
      to: "2026-08-03",
    });
    const pendingTruth = new Set(requests.filter((r) => r.status === "pending").map((r) => String(r.uuid)));
    expect(pendingTruth.size).toBeGreaterThan(0);
    const afterFirst = await tracked(db, "transcription");
    expect(afterFirst.byState("pending")).toEqual(pendingTruth);
    expect(afterFirst.byState("none").size).toBeGreaterThan(0);

    // Later in the evening: the pending ones are ready, and more calls were made meanwhile.
    await setSandboxClock(sandbox, "2026-08-03T19:00:00Z");
    const asked = await routeRequests(sandbox, CALL_TRANSCRIPTION);
    const second = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(second.exitCode).toBe(0);
    const afterSecond = await tracked(db, "transcription");
    const newIds = afterSecond.rows.filter(
      (r) => !afterFirst.rows.some((f) => f.external_id === r.external_id),
    );
    // Asked: the pending ones and the new calls, nothing else (no id answered before).
    expect((await routeRequests(sandbox, CALL_TRANSCRIPTION)) - asked).toBe(
      pendingTruth.size + newIds.length,
    );
    for (const row of afterSecond.rows) {
      if (
        afterFirst.byState("none").has(row.external_id) ||
        afterFirst.byState("final").has(row.external_id)
      ) {
        expect(row.attempts, `${row.external_id} asked again`).toBe(1);
      }
    }
    for (const id of pendingTruth) expect(afterSecond.byState("final").has(id), id).toBe(true);
    const ready = await truthRecords(sandbox, "transcriptions", "master", { from: START, to: "2026-08-03" });
    for (const table of ["transcriptions", "transcription_turns"]) {
      expect(await landedRows(db.warehouse, table, "master"), table).toEqual(expectedFromTruth(table, ready));
    }

    // Past the world's end nothing new is made: a run asks only what is still pending (none of the old).
    await setSandboxClock(sandbox, "2026-08-04T02:00:00Z");
    await runAt(db.warehouse, config, sandbox, { command: "run" });
    const settled = await routeRequests(sandbox, CALL_TRANSCRIPTION);
    const quiet = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(quiet.streams.find((s) => s.stream === "transcriptions")?.lookups).toEqual({});
    expect(await routeRequests(sandbox, CALL_TRANSCRIPTION)).toBe(settled);
    // No call was ever asked at speech-analytics (uploaded audio only).
    expect(await routeRequests(sandbox, SPEECH_ANALYTICS)).toBe(0);
  });

  it("a transcription pending longer than the age limit expires and is not asked again", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({ seed: 82, start: START, days: 2, accounts: 1, callsPerDay: 50 });
    const db = await createDatabase();
    const config = lookupConfig(sandbox, "transcriptions", { transcriptionMaxAgeDays: 1 });
    // An uploaded file's transcription the platform does not know: 404, none.
    await trackIds(db.warehouse.db, {
      kind: "transcription",
      account: "master",
      ids: ["file-that-does-not-exist"],
      source: "file",
      at: new Date(Date.parse("2026-08-03T00:00:00Z")),
    });
    // A file tracked long ago and still pending (asked before this test): older than a day, it expires.
    await trackIds(db.warehouse.db, {
      kind: "transcription",
      account: "master",
      ids: ["file-from-last-week"],
      source: "file",
      at: new Date(Date.parse("2026-07-25T00:00:00Z")),
    });
    const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(result.exitCode).toBe(0);
    const states = await tracked(db, "transcription");
    expect(states.byState("none").has("file-that-does-not-exist")).toBe(true);
    expect(states.byState("expired").has("file-from-last-week")).toBe(true);
    expect(states.rows.find((r) => r.external_id === "file-from-last-week")?.attempts).toBe(0);
    // Only calls of the last day were asked about (the age limit), none older.
    const calls = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM etl.tracked_requests r JOIN platform.cdrs c ON c.uuid = r.external_id
      WHERE r.kind = 'transcription' AND c.date < '2026-08-02T00:00:00Z'`.execute(db.warehouse.db);
    expect(calls.rows[0]?.n).toBe(0);
  });

  it("an uploaded file's transcription tracked by request id loads from speech-analytics: pending, then final", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({ seed: 84, start: START, days: 8, accounts: 1, callsPerDay: 20 });
    const db = await createDatabase();
    const config = lookupConfig(sandbox, "transcriptions", { transcriptionMaxAgeDays: 60 });
    const range = { from: START, to: "2026-08-08" };
    const uploads = await truthRecords(sandbox, "uploaded_transcriptions", "master", range);
    expect(uploads.length).toBe(2);
    const upload = uploads[0]!;
    // Tracked the moment it was submitted: the platform is still making it.
    await setSandboxClock(sandbox, String(upload.submitted_at));
    await trackIds(db.warehouse.db, {
      kind: "transcription",
      account: "master",
      ids: [String(upload.request_id)],
      source: "file",
      at: new Date(Date.parse(String(upload.submitted_at))),
    });
    await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect((await tracked(db, "transcription")).byState("pending")).toContain(String(upload.request_id));
    await setSandboxClock(sandbox, "2026-08-09T00:00:00Z");
    const later = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(later.exitCode).toBe(0);
    expect((await tracked(db, "transcription")).byState("final")).toContain(String(upload.request_id));
    const [ready] = await truthRecords(sandbox, "uploaded_transcriptions", "master", range);
    expect(ready!.transcription).not.toBeNull();
    const calls = await truthRecords(sandbox, "transcriptions", "master", range);
    for (const table of ["transcriptions", "transcription_turns"]) {
      expect(await landedRows(db.warehouse, table, "master"), table).toEqual(
        expectedFromTruth(table, [...calls, ready!.transcription as Record<string, unknown>]),
      );
    }
    // Asked at speech-analytics once per state (pending, then final); never under a CDR.
    expect(await routeRequests(sandbox, SPEECH_ANALYTICS)).toBe(2);
  });

  it("a validation in progress is polled until done, its results upserted as they appear; an unknown token is not_found", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({ seed: 83, start: START, days: 14, accounts: 1, callsPerDay: 10 });
    const db = await createDatabase();
    const request = sandbox.world.accounts[0]!.validations.find(
      (v) => v.count >= 10 && v.processingMs >= 600_000,
    )!;
    expect(request).toBeDefined();
    const midway = new Date(request.createdAtMs + request.processingMs / 2).toISOString();
    await setSandboxClock(sandbox, midway);
    const base = lookupConfig(sandbox, "validations");
    const config = {
      ...base,
      accounts: base.accounts.map((a) => ({
        ...a,
        streams: ["validations"],
        sources: {
          subAccounts: [],
          brandIds: undefined,
          validationTokens: [request.token, "00000000-0000-4000-a000-000000000000"],
          numberCatalog: { countries: [], textEnabledOnly: false },
        },
      })),
    };
    const truthOf = async () =>
      (await truthRecords(sandbox, "validations", "master")).filter((v) => v.token === request.token);
    const first = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(first.exitCode).toBe(0);
    const inProgress = await truthOf();
    expect(inProgress[0]).toMatchObject({ status: "in progress" });
    expect(await landedRows(db.warehouse, "validations", "master")).toEqual(
      expectedFromTruth("validations", inProgress),
    );
    expect(await landedRows(db.warehouse, "validation_results", "master")).toEqual(
      expectedFromTruth("validation_results", inProgress),
    );
    const states = await tracked(db, "validation");
    expect(states.byState("pending")).toEqual(new Set([request.token]));
    expect(states.byState("not_found")).toEqual(new Set(["00000000-0000-4000-a000-000000000000"]));

    await setSandboxClock(
      sandbox,
      new Date(request.createdAtMs + request.processingMs + 60_000).toISOString(),
    );
    await runAt(db.warehouse, config, sandbox, { command: "run" });
    const done = await truthOf();
    expect(done[0]).toMatchObject({ status: "success", pending: 0 });
    expect(await landedRows(db.warehouse, "validation_results", "master")).toEqual(
      expectedFromTruth("validation_results", done),
    );
    expect((await tracked(db, "validation")).byState("final")).toEqual(new Set([request.token]));
    const polled = await routeRequests(sandbox, "GET /v1/validation/{uuid}");
    await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(await routeRequests(sandbox, "GET /v1/validation/{uuid}")).toBe(polled);
  });
});
