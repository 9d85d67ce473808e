import { describe, expect, it } from "vitest";
import { runOutcome } from "../../src/pipeline/run/run-outcome.js";
import { newTally, type StreamSummary } from "../../src/pipeline/run/run-stream.js";

function summary(account: string, stream: string, patch: Partial<StreamSummary> = {}): StreamSummary {
  return { ...newTally(account, stream, 3), windowsLoaded: 3, ...patch };
}

describe("runOutcome", () => {
  it("is 0 when everything loaded without rejects", () => {
    expect(runOutcome([summary("a", "cdrs"), summary("b", "cdrs")], false)).toEqual({
      exitCode: 0,
      status: "succeeded",
    });
  });

  it("is 3 when rows were quarantined and nothing failed", () => {
    expect(runOutcome([summary("a", "cdrs", { rejected: 2 }), summary("a", "invoices")], false)).toEqual({
      exitCode: 3,
      status: "quarantined",
    });
  });

  it("is 1 (partial) when a window failed, even with rejects elsewhere", () => {
    const failed = summary("a", "cdrs", { status: "failed", windowsFailed: 1, windowsLoaded: 2 });
    expect(runOutcome([failed, summary("a", "invoices", { rejected: 1 })], false)).toEqual({
      exitCode: 1,
      status: "partial",
    });
  });

  it("is 1 when a stream was skipped for a missing permission", () => {
    const skipped = summary("a", "invoices", { status: "skipped", windowsLoaded: 0, windowsNotRun: 1 });
    expect(runOutcome([summary("a", "cdrs"), skipped], false).exitCode).toBe(1);
  });

  it("is unaffected by a stream whose product is not provisioned (a warning, nothing lost)", () => {
    const missing = summary("a", "transcriptions", {
      status: "not_provisioned",
      windowsLoaded: 0,
      windowsNotRun: 1,
    });
    expect(runOutcome([summary("a", "cdrs"), missing], false)).toEqual({ exitCode: 0, status: "succeeded" });
    expect(runOutcome([summary("a", "cdrs", { rejected: 1 }), missing], false).exitCode).toBe(3);
    const failed = summary("a", "cdrs", { status: "failed", windowsFailed: 1, windowsLoaded: 2 });
    expect(runOutcome([failed, missing], false).exitCode).toBe(1);
  });

  it("is 2 only when every account was refused its key and nothing loaded", () => {
    const refused = (account: string) =>
      summary(account, "cdrs", { status: "auth_failed", windowsLoaded: 0 });
    expect(runOutcome([refused("a"), refused("b")], false)).toEqual({ exitCode: 2, status: "failed" });
    expect(runOutcome([refused("a"), summary("b", "cdrs")], false)).toEqual({
      exitCode: 1,
      status: "partial",
    });
  });

  it("is 130 when interrupted", () => {
    expect(runOutcome([summary("a", "cdrs")], true)).toEqual({ exitCode: 130, status: "interrupted" });
  });
});
