import { describe, expect, it } from "vitest";
import { describeNodeProblem, digestDbtEvents } from "../../src/transform/dbt-events.js";

/** One dbt JSON log event, shaped as `dbt --log-format json` prints it (only the fields read). */
function event(name: string, msg: string, level = "info", data: Record<string, unknown> = {}): string {
  return JSON.stringify({ info: { name, level, msg }, data });
}

function node(uniqueId: string, status: string, resourceType: string): Record<string, unknown> {
  const name = uniqueId.split(".").at(-1);
  return {
    node_info: { unique_id: uniqueId, node_name: name, node_status: status, resource_type: resourceType },
  };
}

describe("digestDbtEvents", () => {
  it("names a failing test and a failing model with dbt's first explanation line", () => {
    const digest = digestDbtEvents([
      event("MainReportVersion", "Running with dbt=1.11.16"),
      event("LogModelResult", "1 of 3 OK created sql table model analytics_marts.fct_calls", "info", {
        ...node("model.telecom_etl.fct_calls", "success", "model"),
        status: "SELECT 110",
      }),
      event("LogTestResult", "2 of 3 FAIL 1 always_fails", "error", {
        ...node("test.telecom_etl.always_fails", "fail", "test"),
        status: "fail",
      }),
      event("LogModelResult", "3 of 3 ERROR creating sql table model analytics_marts.broken", "error", {
        ...node("model.telecom_etl.broken", "error", "model"),
        status: "error",
      }),
      event(
        "RunResultFailure",
        "Failure in test always_fails (tests/always_fails.sql)",
        "error",
        node("test.telecom_etl.always_fails", "", "test"),
      ),
      event(
        "RunResultError",
        "  Got 1 result, configured to fail if != 0",
        "error",
        node("test.telecom_etl.always_fails", "", "test"),
      ),
      event(
        "RunResultError",
        '  Database Error in model broken (models/marts/broken.sql)\n  column "nosuch" does not exist\n  LINE 12: ...',
        "error",
        node("model.telecom_etl.broken", "", "model"),
      ),
      event("StatsLine", "Done. PASS=1 WARN=0 ERROR=2 SKIP=0 NO-OP=0 TOTAL=3"),
    ]);
    expect(digest.failures.map(describeNodeProblem)).toEqual([
      "test always_fails (Got 1 result, configured to fail if != 0)",
      'model broken (column "nosuch" does not exist)',
    ]);
    expect(digest.warnings).toEqual([]);
    expect(digest.summary).toBe("PASS=1 WARN=0 ERROR=2 SKIP=0 NO-OP=0 TOTAL=3");
    expect(digest.generalError).toBeUndefined();
    expect(digest.selectedNothing).toBe(false);
  });

  it("a stale source is a failure named source.table; a source past warn_after only a warning", () => {
    const digest = digestDbtEvents([
      event("LogFreshnessResult", "1 of 2 ERROR STALE freshness of platform.sip_trunks", "error", {
        ...node("source.telecom_etl.platform.sip_trunks", "error", "source"),
        source_name: "platform",
        table_name: "sip_trunks",
        status: "error",
      }),
      event("LogFreshnessResult", "2 of 2 WARN freshness of platform.cdrs", "warn", {
        ...node("source.telecom_etl.platform.cdrs", "warn", "source"),
        source_name: "platform",
        table_name: "cdrs",
        status: "warn",
      }),
    ]);
    expect(digest.failures.map(describeNodeProblem)).toEqual(["source platform.sip_trunks (stale)"]);
    expect(digest.warnings.map((w) => w.name)).toEqual(["platform.cdrs"]);
    expect(digest.summary).toBe("PASS=0 WARN=1 ERROR=1");
  });

  it("an error tied to no node (a project that does not parse) is the general error; text lines are kept", () => {
    const digest = digestDbtEvents([
      "not json at all",
      event("MainEncounteredError", "Encountered an error:\nParsing Error in models/x.yml", "error"),
    ]);
    expect(digest.failures).toEqual([]);
    expect(digest.generalError).toBe("Encountered an error:");
    expect(digest.lines[0]).toBe("not json at all");
  });

  it("dbt's command line refusing a flag or DBT_* variable (plain text, no event) is the general error", () => {
    const digest = digestDbtEvents([
      "Usage: dbt build [OPTIONS]",
      "Try 'dbt --help' for help.",
      "",
      "Error: Invalid value for '--log-level-file': 'bogus' is not one of 'debug', 'info', 'warn', 'error', 'none'.",
    ]);
    expect(digest.generalError).toBe(
      "Error: Invalid value for '--log-level-file': 'bogus' is not one of 'debug', 'info', 'warn', 'error', 'none'.",
    );
  });

  it("a selection matching nothing is reported as such", () => {
    const digest = digestDbtEvents([
      event("NothingToDo", "Nothing to do. Try checking your model configs", "warn"),
    ]);
    expect(digest.selectedNothing).toBe(true);
  });

  it("reads dbt's invocation id from its events (the build a publication names)", () => {
    const id = "d20fadfe-46f1-4fb3-9334-33b64a656c27";
    const withId = (msg: string) =>
      JSON.stringify({
        info: { name: "MainReportVersion", level: "info", msg, invocation_id: id },
        data: {},
      });
    expect(digestDbtEvents(["not json", withId("Running with dbt=1.11.16")]).invocationId).toBe(id);
    expect(digestDbtEvents([event("MainReportVersion", "Running with dbt=1.11.16")]).invocationId).toBe(
      undefined,
    );
  });

  it("says why dbt parsed the whole project, and nothing when it reused its saved parse", () => {
    const unable = (reason: string) =>
      event("UnableToPartialParse", `Unable to do partial parsing because ${reason}`, "info", { reason });
    expect(
      digestDbtEvents([
        event("MainReportVersion", "Running with dbt=1.11.16"),
        unable("change detected to override macro. Starting full parse."),
        event("FoundStats", "Found 53 models, 93 data tests"),
      ]).fullParse,
    ).toBe("change detected to override macro. Starting full parse.");
    expect(digestDbtEvents([event("FoundStats", "Found 53 models, 93 data tests")]).fullParse).toBe(
      undefined,
    );
  });
});
