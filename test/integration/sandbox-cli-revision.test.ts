import type { ChildProcess } from "node:child_process";
import { describe, expect, it } from "vitest";
import { type CliResult, collect, runCli, spawnCli, waitForOutput } from "../helpers/cli.js";

/**
 * `telecom-etl sandbox` with the options added for API revision 2026 and the clock skew of the
 * Date header (the built CLI: `npm run build` first).
 */

function bannerOf(child: ChildProcess, done: Promise<CliResult>): Promise<string> {
  return Promise.race([
    waitForOutput(child, (out) => out.includes("admin: ")),
    done.then((result) => {
      throw new Error(`sandbox exited (${result.code}) before serving: ${result.stderr}`);
    }),
  ]);
}

describe("telecom-etl sandbox --api-revision", () => {
  it("serves revision 2026 without the deprecated CDR fields and says so", async () => {
    const child = spawnCli([
      "sandbox",
      "--port",
      "0",
      "--days",
      "2",
      "--calls-per-day",
      "30",
      "--api-revision",
      "2026",
      "--drop-deprecated",
    ]);
    const done = collect(child);
    try {
      const banner = await bannerOf(child, done);
      expect(banner).toContain("API 2026 (deprecated fields dropped)");
      const url = /sandbox listening on (\S+)/.exec(banner)![1]!;
      const world = (await (await fetch(`${url}/_sandbox/world`)).json()) as {
        api_revision: string;
        drop_deprecated: boolean;
        accounts: { api_key: string }[];
      };
      expect(world).toMatchObject({ api_revision: "2026", drop_deprecated: true });
      const headers = { authorization: `Bearer ${world.accounts[0]!.api_key}` };
      const query = "from=2026-08-01&to=2026-08-01&type=placed";
      expect((await fetch(`${url}/v1/cdrs?${query}`, { headers })).status).toBe(200);
      expect((await fetch(`${url}/v1/cdr?${query}`, { headers })).status).toBe(404);
    } finally {
      child.kill("SIGINT");
    }
    expect((await done).code).toBe(0);
  });

  it("skews the Date header by --clock-skew-ms (negative values too)", async () => {
    const child = spawnCli([
      "sandbox",
      "--port",
      "0",
      "--days",
      "1",
      "--calls-per-day",
      "10",
      "--now",
      "2026-08-02T00:00:00Z",
      "--clock-skew-ms",
      "-5000",
    ]);
    const done = collect(child);
    try {
      const banner = await bannerOf(child, done);
      expect(banner).toContain("(Date headers -5000 ms off)");
      const url = /sandbox listening on (\S+)/.exec(banner)![1]!;
      const world = await fetch(`${url}/_sandbox/world`);
      expect(world.headers.get("date")).toBe("Sat, 01 Aug 2026 23:59:55 GMT");
      expect(((await world.json()) as { clock_skew_ms: number }).clock_skew_ms).toBe(-5000);
    } finally {
      child.kill("SIGINT");
    }
    expect((await done).code).toBe(0);
  });

  it("shows the new options in --help", async () => {
    const result = await runCli(["sandbox", "--help"]);
    expect(result.code).toBe(0);
    for (const flag of ["--api-revision", "--drop-deprecated", "--clock-skew-ms"]) {
      expect(result.stdout).toContain(flag);
    }
  });

  it.each([
    [["--api-revision", "2025"], "telecom-etl: sandbox: --api-revision must be 2024 or 2026, got 2025"],
    [["--drop-deprecated"], "telecom-etl: sandbox: --drop-deprecated needs API revision 2026"],
    [
      ["--api-revision", "2024", "--drop-deprecated"],
      "telecom-etl: sandbox: --drop-deprecated needs API revision 2026",
    ],
    [["--clock-skew-ms", "1.5"], "--clock-skew-ms"],
  ])("refuses %j with exit 2 and one line: %s", async (args, line) => {
    const result = await runCli(["sandbox", "--port", "0", ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(line);
  });
});
