import { spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { configFileSchema, loadConfig } from "../../src/config/config.js";
import { checkItemsOf } from "../helpers/check-items.js";
import { CLI_PATH, type CliResult, runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/**
 * `telecom-etl init` run as users run it (the built CLI, no terminal, in an empty folder), then the
 * config it wrote used as written, its account's key and the warehouse in the `.env` beside it:
 * `check` against the sandbox passes, `migrate` sets the BI role's password from `.env`, and no
 * secret of `.env` shows in any output.
 */

/** The BI role's password, only ever in `.env`. */
const BI_PASSWORD = "bi-Password-from-dotenv-7Q2w";

const it = fixtureTest.extend("project", { scope: "file" }, async ({ rig }) => {
  const dir = await mkdtemp("/tmp/telecom-etl-init-");
  const key = rig.sandbox.world.accounts[0]!.apiKey;
  const env: Record<string, string> = {
    // The run's clock is the sandbox's (its data is months old); no key, no warehouse: .env has them.
    TELECOM_ETL_NOW: new Date(rig.sandbox.runtime.clock.now()).toISOString(),
  };
  return { dir, key, env, secrets: [key, BI_PASSWORD] };
});
it.override({ sandboxOptions: { seed: 36, start: "2026-08-01", days: 2, accounts: 1, callsPerDay: 10 } });

/** Everything a command printed, for the secrets test. */
const outputs: CliResult[] = [];
async function cli(args: readonly string[], options: Parameters<typeof runCli>[1]): Promise<CliResult> {
  const result = await runCli(args, options);
  outputs.push(result);
  return result;
}

/**
 * Runs `init` on a pseudo-terminal (`script`), typing each answer once its question shows; resolves
 * to the exit code and what the terminal showed.
 */
function initOnTerminal(
  dir: string,
  answers: readonly [string, string][],
): Promise<{ code: number | null; output: string }> {
  const child = spawn("script", ["-qec", `${process.execPath} ${CLI_PATH} init --dir ${dir}`, "/dev/null"], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TERM: "xterm" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const pending = [...answers];
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    const next = pending[0];
    if (next !== undefined && output.includes(next[0])) {
      pending.shift();
      child.stdin.write(`${next[1]}\r`);
    }
  });
  // A question that never shows would leave it waiting for input: stop it, the assertions say why.
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

describe("telecom-etl init", () => {
  it("writes a config that loads and a .env.example naming exactly its variables", async ({
    project,
    rig,
  }) => {
    const result = await cli(
      [
        "init",
        "--dir",
        project.dir,
        "--account",
        "good",
        "--base-url",
        rig.sandbox.url,
        "--api-revision",
        "2024",
      ],
      { env: project.env, cwd: project.dir },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split("\n")).toEqual([
      `wrote ${project.dir}/telecom-etl.yaml`,
      `wrote ${project.dir}/.env.example`,
      `next: cd ${project.dir}; install -m 600 .env.example .env and set GOOD_API_KEY in it; then run telecom-etl check`,
      "",
    ]);
    const file = path.join(project.dir, "telecom-etl.yaml");
    const config = await loadConfig({ file }, { GOOD_API_KEY: project.key });
    expect(config.accounts.map((a) => [a.name, a.baseUrl, a.apiKeyEnv, a.apiRevision])).toEqual([
      ["good", rig.sandbox.url.replace(/\/+$/, ""), "GOOD_API_KEY", "2024"],
    ]);
    const { accounts: _, ...settings } = configFileSchema.parse(parseYaml(await readFile(file, "utf8")));
    const { accounts: __, ...defaults } = configFileSchema.parse({});
    expect(settings).toEqual(defaults);
    const example = await readFile(path.join(project.dir, ".env.example"), "utf8");
    expect(
      example.split("\n").flatMap((line) => /^(?:# )?([A-Z][A-Z0-9_]*)=$/.exec(line)?.[1] ?? []),
    ).toEqual(["GOOD_API_KEY", "DATABASE_URL", "TELECOM_ETL_BI_READER_PASSWORD"]);
  });

  it("refuses to overwrite without --force, in one line, exit 2; --force overwrites", async ({
    project,
    rig,
  }) => {
    const file = path.join(project.dir, "telecom-etl.yaml");
    const before = await readFile(file, "utf8");
    const args = ["init", "--dir", project.dir, "--account", "other", "--base-url", rig.sandbox.url];
    const refused = await cli(args, { env: project.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `telecom-etl: init: ${file} and ${project.dir}/.env.example already exist; pass --force to overwrite, or --dir to write elsewhere\n`,
    );
    expect(await readFile(file, "utf8")).toBe(before);
    const forced = await cli([...args, "--force"], { env: project.env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(file, "utf8")).toContain("name: other");
    // Back to the account the sandbox knows.
    const again = await cli(
      ["init", "--dir", project.dir, "--account", "good", "--base-url", rig.sandbox.url, "--force"],
      { env: project.env },
    );
    expect(again.code, again.stderr).toBe(0);
  });

  it("with the key, the warehouse and the BI password in .env: migrate and check pass against the sandbox", async ({
    project,
    rig,
  }) => {
    const envFile = path.join(project.dir, ".env");
    const example = await readFile(path.join(project.dir, ".env.example"), "utf8");
    await writeFile(
      envFile,
      example
        .replace("GOOD_API_KEY=", `GOOD_API_KEY=${project.key}`)
        .replace("# DATABASE_URL=", `DATABASE_URL=${rig.db.url}`)
        .replace("# TELECOM_ETL_BI_READER_PASSWORD=", `TELECOM_ETL_BI_READER_PASSWORD="${BI_PASSWORD}"`),
      { mode: 0o600 },
    );
    const migrate = await cli(["migrate"], { env: project.env, cwd: project.dir });
    expect(migrate.code, migrate.stderr).toBe(0);
    const check = await cli(["--log-level", "debug", "check", "--streams", "cdrs"], {
      env: project.env,
      cwd: project.dir,
      timeoutMs: 180_000,
    });
    const items = checkItemsOf(check.stdout);
    expect(
      [...items].filter(([, item]) => item.status === "fail"),
      check.stderr.slice(-1500),
    ).toEqual([]);
    expect(items.get("environment: .env")).toEqual({
      status: "ok",
      detail: `${envFile} gave GOOD_API_KEY, DATABASE_URL, TELECOM_ETL_BI_READER_PASSWORD`,
    });
    expect(items.get("account good: key")?.status).toBe("ok");
    expect(items.get("account good: stream cdrs")?.status).toBe("ok");
    // The BI password came from .env, to migrate (which set it) and to check (which logged in with it).
    expect(items.get("warehouse: BI role")?.detail).toMatch(
      /^\S+_bi_reader logs in with TELECOM_ETL_BI_READER_PASSWORD/,
    );
    expect(check.code, check.stdout).toBe(0);

    const shown = await cli(["--json", "config", "show"], { env: project.env, cwd: project.dir });
    expect(shown.code, shown.stderr).toBe(0);
    const view = JSON.parse(shown.stdout) as Record<string, unknown>;
    expect(view.env_file).toEqual({
      path: envFile,
      loaded: ["GOOD_API_KEY", "DATABASE_URL", "TELECOM_ETL_BI_READER_PASSWORD"],
      ignored: [],
    });
    expect(view.database_url).not.toBe("(embedded)");
    expect((view.accounts as { api_key: string }[])[0]?.api_key).toBe("*** (set)");
    await cli(["config", "show"], { env: project.env, cwd: project.dir });
    // A load logged at trace: every request's line, where a key sent would show.
    const run = await cli(["--log-level", "trace", "run", "--streams", "cdrs"], {
      env: project.env,
      cwd: project.dir,
      timeoutMs: 180_000,
    });
    expect(run.code, run.stderr.slice(-1500)).toBe(0);
  });

  it("a .env others can read, or with a line that is not NAME=value, is refused in one line, exit 2", async ({
    project,
  }) => {
    const envFile = path.join(project.dir, ".env");
    const good = await readFile(envFile, "utf8");
    await chmod(envFile, 0o644);
    const open = await cli(["config", "show"], { env: project.env, cwd: project.dir });
    expect(open.code).toBe(2);
    expect(open.stderr).toBe(
      `telecom-etl: .env: ${envFile} has mode 0644: other users can read the secrets in it; run chmod 600 ${envFile}\n`,
    );
    await chmod(envFile, 0o600);
    await writeFile(envFile, `${good}GOOD_API_KEY ${project.key}\n`);
    const line = good.split("\n").length;
    const broken = await cli(["check", "--streams", "cdrs"], { env: project.env, cwd: project.dir });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toBe(
      `telecom-etl: .env: ${envFile} line ${line} is not NAME=value (nor a comment); fix or remove that line\n`,
    );
    await writeFile(envFile, good);
  });

  it("at a terminal it asks for the accounts and the base URL, and writes what was answered", async ({
    rig,
  }) => {
    const dir = await mkdtemp("/tmp/telecom-etl-init-tty-");
    const { code, output } = await initOnTerminal(dir, [
      ["Account names (comma-separated) [main]: ", "acme, acme-eu"],
      ["The platform's base URL (without /v1)", rig.sandbox.url],
    ]);
    expect(code, output).toBe(0);
    const config = await loadConfig(
      { file: path.join(dir, "telecom-etl.yaml") },
      { ACME_API_KEY: "key-acme-123", ACME_EU_API_KEY: "key-acme-eu-456" },
    );
    expect(config.accounts.map((a) => [a.name, a.baseUrl, a.apiKeyEnv])).toEqual([
      ["acme", rig.sandbox.url.replace(/\/+$/, ""), "ACME_API_KEY"],
      ["acme-eu", rig.sandbox.url.replace(/\/+$/, ""), "ACME_EU_API_KEY"],
    ]);
  });

  it("no secret of .env appears in any output of any command above", async ({ project }) => {
    expect(outputs.length).toBeGreaterThanOrEqual(11);
    // The trace log of the run said much: the scan below reads real output.
    expect(
      outputs
        .map((o) => o.stderr)
        .join("")
        .split("\n").length,
    ).toBeGreaterThan(20);
    const env = await readFile(path.join(project.dir, ".env"), "utf8");
    for (const secret of project.secrets) {
      expect(env).toContain(secret);
      for (const { stdout, stderr } of outputs) {
        expect(stdout).not.toContain(secret);
        expect(stderr).not.toContain(secret);
      }
    }
  });
});
