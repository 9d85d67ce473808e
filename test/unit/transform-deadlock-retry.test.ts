import { describe, expect, it } from "vitest";
import { failedOnlyByDeadlock } from "../../src/transform/build-marts.js";
import type { DbtNodeProblem } from "../../src/transform/dbt-events.js";
import type { DbtResult } from "../../src/transform/run-dbt.js";

function result(ok: boolean, failures: DbtNodeProblem[], generalError?: string): DbtResult {
  return {
    ok,
    exitCode: ok ? 0 : 1,
    summary: "",
    selectedNothing: false,
    tail: [],
    failures,
    warnings: [],
    generalError,
    logPath: "dbt.log",
    targetPath: "target",
    invocationId: undefined,
  };
}

const deadlock: DbtNodeProblem = {
  resourceType: "model",
  name: "fct_messages",
  status: "error",
  detail: "deadlock detected",
};

describe("failedOnlyByDeadlock (a build Postgres failed by breaking a deadlock is built once more)", () => {
  it("is true when every failure is a deadlock (the dbt log of a CI run: model fct_messages)", () => {
    expect(failedOnlyByDeadlock(result(false, [deadlock]))).toBe(true);
    expect(failedOnlyByDeadlock(result(false, [deadlock, { ...deadlock, name: "rpt_messages_daily" }]))).toBe(
      true,
    );
  });

  it("is false for a passing build, a failing test or model beside it, or dbt's own error", () => {
    expect(failedOnlyByDeadlock(result(true, []))).toBe(false);
    const failingTest: DbtNodeProblem = {
      resourceType: "test",
      name: "column_rules_fct_calls",
      status: "fail",
      detail: "Got 1 result, configured to fail if != 0",
    };
    expect(failedOnlyByDeadlock(result(false, [deadlock, failingTest]))).toBe(false);
    expect(failedOnlyByDeadlock(result(false, [{ ...deadlock, detail: undefined }]))).toBe(false);
    expect(failedOnlyByDeadlock(result(false, [], "Encountered an error: deadlock detected"))).toBe(false);
    expect(failedOnlyByDeadlock(result(false, [deadlock], "dbt could not start"))).toBe(false);
  });
});
