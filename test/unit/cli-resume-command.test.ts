import { describe, expect, it } from "vitest";
import { resumeCommandLine, shellWord } from "../../src/cli/resume-command.js";

describe("resumeCommandLine", () => {
  it("is the command line as given, with a backfill's --from moved up (both spellings)", () => {
    const argv = [
      "--config",
      "/etc/etl.yaml",
      "backfill",
      "--streams",
      "cdrs",
      "--from",
      "2026-01-01",
      "--to",
      "2026-03-31",
    ];
    expect(resumeCommandLine(argv, "2026-02-14")).toBe(
      "telecom-etl --config /etc/etl.yaml backfill --streams cdrs --from 2026-02-14 --to 2026-03-31",
    );
    expect(resumeCommandLine(["backfill", "--from=2026-01-01", "--to=2026-01-31"], "2026-01-20")).toBe(
      "telecom-etl backfill --from=2026-01-20 --to=2026-01-31",
    );
    expect(resumeCommandLine(["nightly", "--lock-timeout", "600"])).toBe(
      "telecom-etl nightly --lock-timeout 600",
    );
  });

  it("quotes what a shell would split or expand", () => {
    expect(shellWord("/etc/my etl.yaml")).toBe("'/etc/my etl.yaml'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord("$HOME")).toBe("'$HOME'");
    expect(shellWord("acme/cdrs/2026-08-05")).toBe("acme/cdrs/2026-08-05");
  });
});
