import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { collect, postgresPidsUnder, runCli, spawnCli, waitForOutput } from "../helpers/cli.js";

/** A fresh working directory; 0755 because the embedded server runs as user postgres when we are root. */
async function workdir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "telecom-etl-cli-"));
  await chmod(dir, 0o755);
  return dir;
}

describe("CLI spine", () => {
  it("exits 2 with commander's message for an unknown command or flag", async () => {
    const unknownCommand = await runCli(["frobnicate"]);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toContain("unknown command 'frobnicate'");
    const unknownFlag = await runCli(["migrate", "--frobnicate"]);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toContain("unknown option '--frobnicate'");
  });

  it("refuses an unknown LOG_LEVEL in one line, exit 2", async () => {
    const result = await runCli(["config", "show"], { env: { LOG_LEVEL: "loud" } });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'telecom-etl: LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got "loud"',
    );
  });

  it("every command's help has an example", async () => {
    for (const args of [["migrate"], ["warehouse", "up"], ["warehouse", "url"], ["config", "show"]]) {
      const result = await runCli([...args, "--help"]);
      expect(result.code, args.join(" ")).toBe(0);
      expect(result.stdout, args.join(" ")).toContain("Example:");
    }
  });

  it("names host and port, never the password, when the database is unreachable or malformed", async () => {
    const unreachable = await runCli(["migrate"], {
      env: { DATABASE_URL: "postgres://etl:s3cr3t-pw@127.0.0.1:1/wh" },
    });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr.trim().split("\n")).toHaveLength(1);
    expect(unreachable.stderr).toContain("127.0.0.1:1/wh");
    expect(unreachable.stderr).not.toContain("s3cr3t-pw");
    const malformed = await runCli(["migrate", "--database-url", "mysql://x"]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("DATABASE_URL is not a valid PostgreSQL URL");
  });

  it("gives one line per config problem and exits 2 without touching anything", async () => {
    const dir = await workdir();
    await writeFile(
      path.join(dir, "bad.yaml"),
      "window_days: -1\naccounts:\n  - name: x\n    base_url: nope\n    api_key_env: K\n",
    );
    const result = await runCli(["--config", "bad.yaml", "migrate"], { cwd: dir });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^telecom-etl: config: window_days: .*>=1/),
        expect.stringMatching(/^telecom-etl: config: accounts\.0\.base_url: expected an http\(s\) URL/),
      ]),
    );
    expect(await postgresPidsUnder(dir)).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)(
    "says in one line when the postgres user cannot reach the data folder",
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), "telecom-etl-private-"));
      const result = await runCli(["migrate"], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toBe(
        `telecom-etl: the embedded warehouse runs as user postgres, which cannot enter ${dir}; run \`chmod o+x ${dir}\` or set embedded_dir elsewhere`,
      );
    },
  );

  it("config show prints no secret", async () => {
    const result = await runCli(["--json", "config", "show"], {
      env: {
        TELECOM_API_URL: "http://127.0.0.1:4010",
        TELECOM_API_KEY: "sk_live_abcdef123456",
        DATABASE_URL: "postgres://etl:db-password-42@db:5432/wh",
      },
    });
    expect(result.code).toBe(0);
    const shown = JSON.parse(result.stdout) as { accounts: { api_key: string }[]; database_url: string };
    expect(shown.accounts[0]?.api_key).toBe("*** (set)");
    expect(result.stdout + result.stderr).not.toContain("sk_live_abcdef123456");
    expect(result.stdout + result.stderr).not.toContain("db-password-42");
  });

  it("config show masks the credentials of a base_url: its userinfo and a key in its query string", async () => {
    const dir = await workdir();
    await writeFile(
      path.join(dir, "telecom-etl.yaml"),
      [
        "accounts:",
        "  - name: acme",
        "    base_url: https://acme-user:hunter2-pass@api.example.com/telecom?region=eu&api_key=sk_query_987654321",
        "    api_key_env: ACME_KEY",
        "  - name: beta",
        "    base_url: https://tok_user_only_555@api.example.com/?accessToken=at_query_123456",
        "    api_key_env: BETA_KEY",
      ].join("\n"),
    );
    for (const args of [
      ["config", "show"],
      ["--json", "config", "show"],
    ]) {
      const result = await runCli(args, { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      for (const secret of [
        "acme-user",
        "hunter2-pass",
        "sk_query_987654321",
        "tok_user_only_555",
        "at_query_123456",
      ])
        expect(result.stdout + result.stderr, secret).not.toContain(secret);
      expect(result.stdout).toContain("https://***:***@api.example.com/telecom?region=eu&api_key=***");
      expect(result.stdout).toContain("https://***@api.example.com/?accessToken=***");
    }
  });

  it("migrates the embedded warehouse, a second migrate is a no-op, and no postgres is left running", async () => {
    const dir = await workdir();
    const first = await runCli(["migrate"], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/applied \d+ migration\(s\): 0001_create_etl_schema/);
    const second = await runCli(["migrate"], { cwd: dir });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/schema is up to date/);
    expect(await postgresPidsUnder(dir)).toEqual([]);
  });

  it("stops the embedded warehouse after a command that fails", async () => {
    const dir = await workdir();
    await writeFile(
      path.join(dir, "telecom-etl.yaml"),
      "start_date: '2026-08-01'\nretry: { max_attempts: 1 }\nstreams: [invoices]\n",
    );
    const result = await runCli(["run"], {
      cwd: dir,
      env: { TELECOM_API_URL: "http://127.0.0.1:1", TELECOM_API_KEY: "k-unreachable" },
    });
    // A port that refuses every connection: the account stops at once, nothing read (exit 2).
    expect(result.code, result.stderr.slice(-2000)).toBe(2);
    expect(await postgresPidsUnder(dir)).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain("k-unreachable");
  });

  it("stops the embedded warehouse after SIGINT", async () => {
    const dir = await workdir();
    const child = spawnCli(["warehouse", "up"], { cwd: dir });
    const done = collect(child);
    const url = (await waitForOutput(child, (out) => out.includes("postgres://"))).trim();
    expect(url).toMatch(/^postgres:\/\/postgres:[0-9a-f]+@127\.0\.0\.1:\d+\/postgres$/);
    expect(await postgresPidsUnder(dir)).not.toEqual([]);
    const shown = await runCli(["warehouse", "url"], { cwd: dir });
    expect(shown.stdout.trim()).toBe(url);
    child.kill("SIGINT");
    const result = await done;
    expect(result.code).toBe(0);
    expect(await postgresPidsUnder(dir)).toEqual([]);
    const after = await runCli(["warehouse", "url"], { cwd: dir });
    expect(after.code).toBe(2);
    expect(after.stderr).toContain("telecom-etl warehouse up");
  });

  it("leaves no orphaned postgres even when the CLI is killed with SIGKILL", async () => {
    const dir = await workdir();
    const child = spawnCli(["warehouse", "up"], { cwd: dir });
    const done = collect(child);
    await waitForOutput(child, (out) => out.includes("postgres://"));
    expect(await postgresPidsUnder(dir)).not.toEqual([]);
    child.kill("SIGKILL");
    await done;
    // The CLI's watchdog (not a child of the test) stops the server: poll until it has.
    await expect
      .poll(async () => (await postgresPidsUnder(dir)).length === 0, { interval: 100, timeout: 10_000 })
      .toBe(true);
  });
});
