import type { SandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import { sql } from "kysely";
import { describe, expect, it } from "../helpers/fixtures.js";
import {
  capturingLogger,
  expectedRows,
  loadedRows,
  runAt,
  SAMPLE_STREAMS,
  sandboxConfig,
  setSandboxClock,
  truthRange,
  truthRecords,
} from "./pipeline-harness.js";
import { expectTruthLandedWithRejects } from "./truth-landed.js";
import { expectedFromTruth, landedRows } from "./truth-oracle.js";

/**
 * Issue "nothing lost", item 3: the loader reads the platform's 2024 revision, its 2026 revision,
 * and the 2026 revision without the deprecated `uuid` / `parent_uuid` (what their removal will look
 * like), deciding which once per run (`api_revision: auto`). The ground-truth checks of the faults
 * and nightly suites hold on each.
 */
const VARIANTS: readonly {
  readonly name: string;
  readonly options: SandboxOptions;
  readonly revision: string;
}[] = [
  { name: "2024", options: { apiRevision: "2024" }, revision: "2024" },
  { name: "2026", options: { apiRevision: "2026" }, revision: "2026" },
  {
    name: "2026 without deprecated fields",
    options: { apiRevision: "2026", dropDeprecated: true },
    revision: "2026",
  },
];

describe("API revisions 2024 and 2026", () => {
  it.for(VARIANTS)(
    "$name: hostile faults give the truth and exactly the malformed rows as rejects; auto picks the revision",
    async (variant, { launchSandbox, createDatabase }) => {
      const sandbox = await launchSandbox({
        seed: 41,
        start: "2026-08-01",
        days: 3,
        accounts: 1,
        callsPerDay: 300,
        faults: { base: "hostile", hangMs: 2_500, latencySpikeMs: 200, retryAfterSeconds: 1 },
        ...variant.options,
      });
      const db = await createDatabase();
      const config = sandboxConfig(sandbox, {
        timeouts: { connectMs: 2_000, headersMs: 1_000, totalMs: 1_000 },
      });
      const account = config.accounts[0]!.name;
      const lines: string[] = [];
      const result = await runAt(
        db.warehouse,
        config,
        sandbox,
        { command: "run" },
        { log: capturingLogger(lines) },
      );
      expect(result.exitCode, JSON.stringify(result.streams.map((s) => s.errors))).toBe(3);
      const chosen = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((l) => "apiRevision" in l);
      expect(chosen).toMatchObject({ account, apiRevision: variant.revision });
      expect(String(chosen?.msg)).toMatch(
        /^API revision 20\d\d \(auto: GET \/v1\/cdrs answered (200|404)\)$/,
      );

      await expectTruthLandedWithRejects(db.warehouse, sandbox, account, result.today);
      // The 2026 alias is the identity, never an unknown field piling up in _extra.
      const aliases = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM platform.cdrs
        WHERE _extra ?| array['call_id', 'parent_call_id', 'uuid', 'parent_uuid']`.execute(db.warehouse.db);
      expect(aliases.rows[0]?.n).toBe(0);
    },
  );

  it.for(VARIANTS)(
    "$name: nightly runs with late arrivals converge to the truth",
    async (variant, { launchSandbox, createDatabase }) => {
      const sandbox = await launchSandbox({
        seed: 42,
        start: "2026-08-01",
        days: 8,
        accounts: 2,
        callsPerDay: 120,
        lateShare: 0.1,
        now: "2026-08-03T05:00:00Z",
        ...variant.options,
      });
      const db = await createDatabase();
      // Calls' transcriptions too (read under the CDR of the revision), with the settings that make calls candidates.
      const base = sandboxConfig(sandbox, { transcriptionMaxAgeDays: 60 });
      const config = {
        ...base,
        accounts: base.accounts.map((a) => ({
          ...a,
          streams: [...SAMPLE_STREAMS, "sip_trunks", "numbers", "transcriptions"],
        })),
      };
      for (const now of [
        "2026-08-03T05:00:00Z",
        "2026-08-04T05:00:00Z",
        "2026-08-06T05:00:00Z",
        "2026-08-09T05:00:00Z",
      ]) {
        await setSandboxClock(sandbox, now);
        const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
        expect(result.exitCode, JSON.stringify(result.streams.map((s) => s.errors))).toBe(0);
        for (const account of config.accounts.map((a) => a.name)) {
          for (const stream of SAMPLE_STREAMS) {
            const range = truthRange(stream, "2026-08-01", result.today);
            expect(await loadedRows(db.warehouse, stream, account), `${account}/${stream} at ${now}`).toEqual(
              await expectedRows(sandbox, stream, account, range),
            );
          }
          const ready = await truthRecords(sandbox, "transcriptions", account, {
            from: "2026-08-01",
            to: result.today,
          });
          for (const table of ["transcriptions", "transcription_turns"]) {
            expect(await landedRows(db.warehouse, table, account), `${account}/${table} at ${now}`).toEqual(
              expectedFromTruth(table, ready),
            );
          }
        }
      }
      const transcribed = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM platform.transcriptions WHERE call_uuid IS NOT NULL`.execute(
        db.warehouse.db,
      );
      expect(transcribed.rows[0]?.n).toBeGreaterThan(0);
      // Child legs keep their parent on every revision (parent_call_id when uuid is gone).
      const parents = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM platform.cdrs WHERE parent_uuid IS NOT NULL`.execute(db.warehouse.db);
      expect(parents.rows[0]?.n).toBeGreaterThan(0);
    },
  );

  it("an account configured for 2024 against a 2026 platform fails its CDR windows naming the 404 and the setting", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 43,
      start: "2026-08-01",
      days: 2,
      accounts: 1,
      callsPerDay: 20,
      apiRevision: "2026",
    });
    const db = await createDatabase();
    const base = sandboxConfig(sandbox);
    const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, apiRevision: "2024" as const })) };
    const result = await runAt(db.warehouse, config, sandbox, {
      command: "run",
      streams: ["cdrs", "invoices"],
    });
    expect(result.exitCode).toBe(1);
    const cdrs = result.streams.find((s) => s.stream === "cdrs")!;
    expect(cdrs.windowsFailed).toBe(3);
    expect(cdrs.errors[0]).toMatch(/GET \/v1\/cdr\?.*404.*api_revision/);
    // Invoices have the same path on both revisions and load.
    expect(result.streams.find((s) => s.stream === "invoices")?.status).toBe("succeeded");
  });
});
