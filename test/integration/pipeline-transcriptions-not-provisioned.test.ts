import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import type { EtlConfig } from "../../src/config/config.js";
import { formatRunSummary } from "../../src/pipeline/run/format-summary.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { capturingLogger, runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";
import { expectedFromTruth, landedRows } from "./truth-oracle.js";

/**
 * Issue 14, bad input: an account without speech analytics answers 403 on every call
 * transcription. The stream is reported `not_provisioned` once (one warning, one summary entry
 * naming account, stream and the fix), the run exits 0 (nothing was lost), and no candidate
 * changes state: once the product is enabled, the next run loads every transcription.
 */
const WORLD = { seed: 85, start: "2026-08-01", days: 3, accounts: 1, callsPerDay: 200 } as const;

/** CDRs, the settings that make calls candidates, and transcriptions. */
function transcriptionConfig(sandbox: RunningSandbox): EtlConfig {
  const base = sandboxConfig(sandbox, { transcriptionMaxAgeDays: 60 });
  return {
    ...base,
    accounts: base.accounts.map((a) => ({
      ...a,
      streams: ["cdrs", "sip_trunks", "numbers", "transcriptions"],
    })),
  };
}

describe("transcriptions without speech analytics", () => {
  it.for(["2024", "2026"] as const)(
    "API revision %s: reported not provisioned once, exit 0, nothing lost once enabled",
    async (revision, { launchSandbox, createDatabase }) => {
      const off = await launchSandbox({ ...WORLD, apiRevision: revision, speechAnalytics: false });
      const db = await createDatabase();
      const lines: string[] = [];
      const first = await runAt(
        db.warehouse,
        transcriptionConfig(off),
        off,
        { command: "run" },
        { log: capturingLogger(lines) },
      );
      const transcriptions = first.streams.find((s) => s.stream === "transcriptions")!;
      expect(transcriptions.status).toBe("not_provisioned");
      expect(first.exitCode, JSON.stringify(first.streams)).toBe(0);
      expect(first.streams.filter((s) => s.stream !== "transcriptions").map((s) => s.status)).toEqual([
        "succeeded",
        "succeeded",
        "succeeded",
      ]);
      // One entry, one line: account, stream, what the platform said and how to fix it.
      expect(transcriptions.errors).toHaveLength(1);
      expect(transcriptions.errors[0]).toMatch(
        /^account master, stream transcriptions: not provisioned: speech analytics is not enabled for this account \(403 "The service is not provisioned for your account\." on GET \/v1\/cdrs?\/[0-9a-f-]+\/transcription\); .*enable speech analytics for the account, or remove "transcriptions" from the account's streams$/,
      );
      expect(transcriptions.errors[0]).not.toContain("\n");
      // One warning says it (the per-window progress event "window skipped" carries it as its error).
      const warnings = lines.filter((l) => String(JSON.parse(l).msg).includes("not provisioned"));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({
        level: 40,
        account: "master",
        stream: "transcriptions",
      });
      expect(formatRunSummary(first).filter((l) => l.includes("not provisioned"))).toHaveLength(1);
      expect(formatRunSummary(first).join("\n")).toMatch(/master\/transcriptions\s+not_provisioned/);
      // No candidate was marked none or final: all are asked again once the product is enabled.
      const marked = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM etl.tracked_requests WHERE kind = 'transcription'`.execute(
        db.warehouse.db,
      );
      expect(marked.rows[0]?.n).toBe(0);
      const recorded = await sql<{ status: string }>`
        SELECT status FROM etl.run_streams WHERE run_id = ${first.runId} AND stream = 'transcriptions'`.execute(
        db.warehouse.db,
      );
      expect(recorded.rows).toEqual([{ status: "not_provisioned" }]);

      // Speech analytics enabled (the same world): the next run loads every transcription.
      const on = await launchSandbox({ ...WORLD, apiRevision: revision });
      const second = await runAt(db.warehouse, transcriptionConfig(on), on, { command: "run" });
      expect(second.exitCode).toBe(0);
      expect(second.streams.find((s) => s.stream === "transcriptions")?.status).toBe("succeeded");
      const ready = await truthRecords(on, "transcriptions", "master", {
        from: WORLD.start,
        to: second.today,
      });
      expect(ready.length).toBeGreaterThan(0);
      for (const table of ["transcriptions", "transcription_turns"]) {
        expect(await landedRows(db.warehouse, table, "master"), table).toEqual(
          expectedFromTruth(table, ready),
        );
      }
    },
  );
});
