import { describe, expect, it } from "vitest";
import { EXIT, type ExitCode } from "../../src/core/exit-codes.js";
import { alertText } from "../../src/monitoring/alert-message.js";
import { slackText } from "../../src/monitoring/post-alert.js";
import type { RunEnd } from "../../src/monitoring/run-end.js";
import type { PipelineResult } from "../../src/pipeline/run/run-pipeline.js";
import { newTally } from "../../src/pipeline/run/run-stream.js";
import type { DbtStepRecord } from "../../src/transform/dbt-step-record.js";
import { terminalControls } from "../helpers/terminal-controls.js";

function end(exitCode: ExitCode, patch: Partial<RunEnd> = {}): RunEnd {
  return { command: "nightly", host: "etl-1", exitCode, startedAt: 0, endedAt: 1000, dbtSteps: [], ...patch };
}

function result(streams: PipelineResult["streams"]): PipelineResult {
  return {
    runId: 42,
    runStartedAt: new Date("2026-08-05T02:15:00Z"),
    today: "2026-08-05",
    streams,
    budgets: [],
    exitCode: EXIT.workFailed,
    status: "partial",
    notes: [],
  };
}

const freshness = (patch: Partial<DbtStepRecord>): DbtStepRecord => ({
  step: "dbt source freshness",
  ok: true,
  dbtExitCode: 0,
  summary: "",
  failures: [],
  warnings: [],
  durationMs: 1,
  ...patch,
});

describe("the alert of a run", () => {
  it("says nothing for a run that ended 0, or 3 (a few rows quarantined: a success by policy)", () => {
    expect(alertText(end(EXIT.ok))).toBeUndefined();
    expect(alertText(end(EXIT.quarantined))).toBeUndefined();
  });

  it("names the run, each troubled account and stream with its windows' lines, and what to do", () => {
    const held = {
      ...newTally("acme", "cdrs", 3),
      status: "failed" as const,
      windowsLoaded: 3,
      windowsHeld: 1,
      errors: ["account acme, stream cdrs, window 2026-08-01..2026-08-02: 24 of 24 rows rejected: uuid: …"],
    };
    const fine = { ...newTally("acme", "invoices", 1), windowsLoaded: 1 };
    const text = alertText(end(EXIT.workFailed, { result: result([held, fine]) }));
    expect(text?.split("\n")).toEqual([
      "telecom-etl nightly (run 42) on etl-1 ended with exit 1",
      "• account acme, stream cdrs: failed (0 failed, 1 held open of 3 window(s))",
      "    account acme, stream cdrs, window 2026-08-01..2026-08-02: 24 of 24 rows rejected: uuid: …",
      expect.stringMatching(/^What to do: a window failed or was held open/),
      "Details: telecom-etl runs show 42",
    ]);
  });

  it("a run that could not start says the line that stopped it", () => {
    const text = alertText(
      end(EXIT.locked, { command: "run", error: "stream acme/cdrs is locked by run 7" }),
    );
    expect(text).toContain(
      "telecom-etl run on etl-1 ended with exit 4\n• stream acme/cdrs is locked by run 7\n",
    );
    expect(text).toContain("What to do: another run holds the lock");
    expect(text).not.toContain("Details:");
  });

  it("a source past warn_after alerts even when the run ended 0; a failed dbt build names its node", () => {
    const nearly = alertText(
      end(EXIT.ok, { dbtSteps: [freshness({ warnings: ["source platform.cdrs (warn)"] })] }),
    );
    expect(nearly).toContain("• nearly stale (past warn_after, 36 h): source platform.cdrs (warn)");
    expect(nearly).toContain("What to do: a source is getting old");
    const build: DbtStepRecord = {
      ...freshness({}),
      step: "dbt build",
      ok: false,
      failures: ["test not_null_fct_calls_call_uuid (Got 3 results)"],
    };
    expect(alertText(end(EXIT.transformFailed, { dbtSteps: [build] }))).toContain(
      "• dbt build failed: test not_null_fct_calls_call_uuid (Got 3 results)",
    );
  });

  it("is sent as Slack shows it literally: platform markup escaped, control characters stripped", () => {
    const failed = {
      ...newTally("acme", "cdrs", 1),
      status: "failed" as const,
      windowsFailed: 1,
      errors: [
        "account acme, stream cdrs, window 2026-08-01..2026-08-02: HTTP 422: <!channel> see <http://evil.example|the runbook> & \u001b[2Jnow\u0007",
      ],
    };
    const text = slackText(alertText(end(EXIT.workFailed, { result: result([failed]) }))!);
    expect(text).toContain(
      "HTTP 422: &lt;!channel&gt; see &lt;http://evil.example|the runbook&gt; &amp; now",
    );
    expect(text).not.toMatch(/[<>]/);
    expect(terminalControls(text)).toEqual([]);
  });
});
