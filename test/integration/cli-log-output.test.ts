import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CLI_PATH, runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { onTerminal, replayTerminal } from "../helpers/terminal-screen.js";

const FROM = "2026-08-01";
const TO = "2026-08-04";
const BACKFILL = ["backfill", "--streams", "cdrs,short_link_metrics", "--from", FROM, "--to", TO];
/** A pretty log record: `[HH:MM:ss] LEVEL: message {fields}`. */
const PRETTY_RECORD = /^\[\d\d:\d\d:\d\d\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL): /;
/** An SGR sequence (colour, bold): what NO_COLOR must leave out. */
const COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`);

const it = fixtureTest
  .extend("workdir", { scope: "file" }, async ({ sandbox }) => {
    const workdir = await mkdtemp(path.join(tmpdir(), "telecom-etl-logs-"));
    await chmod(workdir, 0o755);
    const account = sandbox.world.accounts[0]!;
    await writeFile(
      path.join(workdir, "telecom-etl.yaml"),
      `accounts:\n  - name: ${account.name}\n    base_url: ${sandbox.url}\n    api_key_env: LOGS_KEY\n    rate: { requests_per_second: 20, burst: 5, concurrency: 2 }\n`,
    );
    return workdir;
  })
  .extend(
    "env",
    { scope: "file" },
    ({ sandbox }): Record<string, string> => ({
      LOGS_KEY: sandbox.world.accounts[0]!.apiKey,
    }),
  );
// A third of the requests answer 500 and are retried: log records appear while the bars are drawn.
it.override({
  sandboxOptions: {
    seed: 5,
    start: FROM,
    days: 4,
    accounts: 1,
    callsPerDay: 300,
    faults: { requests: { http500: 0.3 } },
  },
});

/** A terminal wide enough for the longest record, so a record is one screen line when it is one line. */
const WIDE = 1000;

/** The environment of a CLI started on a terminal by `script`. */
function terminalEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TERM: "xterm", ...extra };
}

describe("log format, level and colour (CLI)", () => {
  it("--log-format json prints one JSON record a line on a non-terminal, over TELECOM_ETL_LOG_FORMAT=pretty; the variable alone gives pretty lines", async ({
    workdir,
    env,
    createDatabase,
  }) => {
    const db = await createDatabase();
    const json = await runCli(["--log-format", "json", ...BACKFILL], {
      env: { ...env, DATABASE_URL: db.url, TELECOM_ETL_LOG_FORMAT: "pretty" },
      cwd: workdir,
    });
    expect(json.code, json.stderr.slice(-1000)).toBe(0);
    const lines = json.stderr.split("\n").filter((l) => l.trim() !== "");
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines)
      expect(JSON.parse(line)).toMatchObject({ level: expect.any(Number), msg: expect.any(String) });

    const pretty = await runCli([...BACKFILL, "--refetch"], {
      env: { ...env, DATABASE_URL: db.url, TELECOM_ETL_LOG_FORMAT: "pretty" },
      cwd: workdir,
    });
    expect(pretty.code, pretty.stderr.slice(-1000)).toBe(0);
    const prettyLines = pretty.stderr.split("\n").filter((l) => l.trim() !== "");
    expect(prettyLines.length).toBeGreaterThan(3);
    for (const line of prettyLines) expect(line).toMatch(PRETTY_RECORD);
    expect(pretty.stderr).not.toMatch(COLOUR); // not a terminal: no colour either

    const bad = await runCli(BACKFILL, {
      env: { ...env, DATABASE_URL: db.url, TELECOM_ETL_LOG_FORMAT: "xml" },
      cwd: workdir,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      'telecom-etl: TELECOM_ETL_LOG_FORMAT: expected one of pretty, json, got "xml"',
    );
  });

  it("retries are logged at debug: absent at the default level, shown with --log-level debug", async ({
    workdir,
    env,
    createDatabase,
  }) => {
    const quiet = await runCli(BACKFILL, {
      env: { ...env, DATABASE_URL: (await createDatabase()).url },
      cwd: workdir,
    });
    expect(quiet.code, quiet.stderr.slice(-1000)).toBe(0);
    expect(quiet.stderr).not.toContain("retrying");
    const verbose = await runCli(["--log-level", "debug", ...BACKFILL], {
      env: { ...env, DATABASE_URL: (await createDatabase()).url },
      cwd: workdir,
    });
    expect(verbose.code, verbose.stderr.slice(-1000)).toBe(0);
    const retries = verbose.stderr
      .split("\n")
      .filter((l) => l.includes("retrying"))
      .map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(retries.length).toBeGreaterThan(0);
    for (const r of retries) expect(r).toMatchObject({ level: 20, msg: "request failed, retrying" });
  });

  it("on a terminal: records print whole above the bars, the summary comes last and whole; NO_COLOR leaves colour out", async ({
    workdir,
    env,
    createDatabase,
  }) => {
    const command = `${process.execPath} ${CLI_PATH} --log-level debug --log-format pretty ${BACKFILL.join(" ")}`;
    const coloured = await onTerminal(command, {
      env: terminalEnv({ ...env, DATABASE_URL: (await createDatabase()).url }),
      cwd: workdir,
    });
    expect(coloured.code, coloured.output.slice(-2000)).toBe(0);
    expect(coloured.output).toMatch(COLOUR);

    const plain = await onTerminal(command, {
      env: terminalEnv({ ...env, DATABASE_URL: (await createDatabase()).url, NO_COLOR: "1" }),
      cwd: workdir,
      columns: WIDE,
    });
    expect(plain.code, plain.output.slice(-2000)).toBe(0);
    expect(plain.output).not.toMatch(COLOUR);
    // The bars were drawn (cursor movements) and records were written while they were.
    expect(plain.output).toContain("\x1b[1A");
    const screen = replayTerminal(plain.output, WIDE).filter((l) => l !== "");
    const written = plain.output.match(/\[\d\d:\d\d:\d\d\] [A-Z]+: /g) ?? [];
    const records = screen.filter((l) => PRETTY_RECORD.test(l));
    // Every record written is on the screen, one line each, none overdrawn by a bar.
    expect(records.length).toBe(written.length);
    expect(records.filter((l) => l.includes("request failed, retrying")).length).toBeGreaterThan(0);
    for (const record of records) {
      expect(record).not.toMatch(/[█░]/);
      expect(record).toMatch(/\}$|[a-z)]$/);
    }
    // Bar lines are bars only; the screen ends with the summary, its lines together.
    for (const bar of screen.filter((l) => /[█░]/.test(l)))
      expect(bar).toMatch(
        /^\S+\/\S+ +\|[█░]+\| \d+\/\d+ windows \| \d+ rows \| \d+ failed \| [\d.]+ req\/s \| ETA \S+$/,
      );
    const summaryStart = screen.findIndex((l) => /^run \d+ \(succeeded, exit 0\)/.test(l));
    expect(summaryStart).toBeGreaterThan(0);
    const after = screen.slice(summaryStart + 1);
    for (const line of after) expect(line).toMatch(/^ {2}\S/);
    expect(
      after.filter((l) => /^ {2}\S+\/(cdrs|short_link_metrics) +succeeded +windows 4\/4 loaded/.test(l)),
    ).toHaveLength(2);
  });
});
