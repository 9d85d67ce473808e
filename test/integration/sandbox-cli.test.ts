import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CliResult, collect, runCli, spawnCli, waitForOutput } from "../helpers/cli.js";

/** `telecom-etl sandbox` as a user runs it (the built CLI: `npm run build` first). */

const dir = mkdtempSync(path.join(tmpdir(), "sandbox-cli-"));

/** The banner, up to the admin line; fails at once (with its stderr) if the sandbox exits first. */
function bannerOf(child: ChildProcess, done: Promise<CliResult>): Promise<string> {
  return Promise.race([
    waitForOutput(child, (out) => out.includes("admin: ")),
    done.then((result) => {
      throw new Error(`sandbox exited (${result.code}) before serving: ${result.stderr}`);
    }),
  ]);
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("telecom-etl sandbox", () => {
  it("prints the base URL, every account's key and the admin URL, serves, and stops on Ctrl-C", async () => {
    const child = spawnCli(["sandbox", "--port", "0", "--seed", "5", "--days", "3", "--calls-per-day", "50"]);
    const done = collect(child);
    try {
      const banner = await bannerOf(child, done);
      const url = /sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
      expect(url).toBeDefined();
      const keys = [...banner.matchAll(/^ {2}(\S+)\s+id \d+\s+key ([0-9a-f]{32})/gm)].map((m) => ({
        name: m[1],
        key: m[2],
      }));
      const world = (await (await fetch(`${url}/_sandbox/world`)).json()) as {
        seed: number;
        accounts: { name: string; api_key: string }[];
      };
      expect(world.seed).toBe(5);
      expect(keys).toEqual(world.accounts.map((a) => ({ name: a.name, key: a.api_key })));
      expect(banner).toContain(`admin: ${url}/_sandbox/world`);
      const cdrs = await fetch(`${url}/v1/cdr?from=2026-08-01&to=2026-08-01&type=placed`, {
        headers: { authorization: `Bearer ${keys[0]!.key}` },
      });
      expect(cdrs.status).toBe(200);
    } finally {
      child.kill("SIGINT");
    }
    const result = await done;
    expect(result.stdout).toContain("sandbox stopped (SIGINT)");
    // Ctrl-C is the sandbox's normal end.
    expect(result.code).toBe(0);
  });

  it("loads a custom fault mix from a JSON file", async () => {
    const file = path.join(dir, "faults.json");
    writeFileSync(file, JSON.stringify({ base: "flaky", requests: { http500: 0.25 }, hangMs: 50 }));
    const child = spawnCli([
      "sandbox",
      "--port",
      "0",
      "--days",
      "2",
      "--calls-per-day",
      "20",
      "--faults",
      file,
    ]);
    const done = collect(child);
    try {
      const banner = await bannerOf(child, done);
      const url = /sandbox listening on (\S+)/.exec(banner)![1];
      const profile = (await (await fetch(`${url}/_sandbox/faults`)).json()) as {
        name: string;
        requests: Record<string, number>;
        hangMs: number;
      };
      expect(profile).toMatchObject({ name: file, requests: { http500: 0.25, http429: 0.03 }, hangMs: 50 });
    } finally {
      child.kill("SIGINT");
    }
    await done;
  });

  it("shows every option of the command in --help", async () => {
    const result = await runCli(["sandbox", "--help"]);
    expect(result.code).toBe(0);
    for (const flag of [
      "--port",
      "--seed",
      "--start",
      "--days",
      "--accounts",
      "--calls-per-day",
      "--faults",
      "--latency-ms",
      "--rate-limit",
      "--max-per-page",
      "--now",
      "--late-share",
      "--shuffle",
    ]) {
      expect(result.stdout).toContain(flag);
    }
  });

  it.each([
    [["--days", "0"], "--days"],
    [["--days", "abc"], "--days"],
    [["--calls-per-day", "1.5"], "--calls-per-day"],
    [["--port", "70000"], "--port"],
    [["--faults", "no-such-profile"], "--faults"],
    [["--faults", "BAD_JSON"], "--faults"],
    [["--faults", "BAD_PROFILE"], "--faults"],
    [["--start", "2026-13-01"], "--start"],
    [["--now", "yesterday"], "--now"],
    [["--late-share", "2"], "--late-share"],
    [["--rate-limit", "-1"], "--rate-limit"],
    [["--max-per-page", "0"], "--max-per-page"],
    [["--accounts", "0"], "--accounts"],
    [["--bogus"], "--bogus"],
  ])("refuses %j with exit 2 and one line naming %s", async (args, flag) => {
    const badJson = path.join(dir, "bad.json");
    writeFileSync(badJson, "{ not json\n at all");
    const badProfile = path.join(dir, "bad-profile.json");
    writeFileSync(badProfile, JSON.stringify({ requests: { http500: 3 } }));
    const resolved = args.map((a) => (a === "BAD_JSON" ? badJson : a === "BAD_PROFILE" ? badProfile : a));
    const result = await runCli(["sandbox", "--port", "0", ...resolved]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(flag);
  });

  it("refuses a port already in use with exit 2 and one line", async () => {
    const first = spawnCli(["sandbox", "--port", "0", "--days", "1", "--calls-per-day", "10"]);
    const done = collect(first);
    try {
      const banner = await bannerOf(first, done);
      const port = /127\.0\.0\.1:(\d+)/.exec(banner)![1]!;
      const result = await runCli(["sandbox", "--port", port, "--days", "1"]);
      expect(result.code).toBe(2);
      expect(result.stderr.trimEnd().split("\n")).toEqual([
        `telecom-etl: sandbox: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`,
      ]);
    } finally {
      first.kill("SIGINT");
    }
    await done;
  });
});
