import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/**
 * The mistakes a new operator makes first (issue 15), each through the built CLI: its exact one
 * line, where it goes (an error on stderr as `telecom-etl: …`; a stopped account or a note in the
 * run's summary on stdout), and its documented exit code. None takes more than a few seconds.
 */

/** A port nothing listens on: bound, then closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One mistake: what the operator runs, with which config and environment, and what must come back. */
interface Mistake {
  readonly mistake: string;
  readonly args: readonly string[];
  /** The config file's text (written to the case's folder), or a directory where the file should be. */
  readonly config?: string | { readonly directory: true };
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly code: number;
  /** The one line: on stderr (an error), or on stdout (a run's summary: a stopped account, a note, a version). */
  readonly stderr?: string;
  readonly stdout?: string | RegExp;
}

const it = fixtureTest.extend("setup", { scope: "file" }, async ({ rig }) => {
  const dir = await mkdtemp("/tmp/telecom-etl-mistakes-");
  const port = await closedPort();
  const key = rig.sandbox.world.accounts[0]!.apiKey;
  const env: Record<string, string> = {
    DATABASE_URL: rig.db.url,
    TELECOM_ETL_STREAMS: "cdrs",
    TELECOM_ETL_START_DATE: "2026-08-07",
    TELECOM_ETL_NOW: "2026-08-09T03:00:00Z",
    ACME_KEY: key,
    NORTHWIND_KEY: key,
  };
  const account = (name: string, url: string) =>
    `  - { name: ${name}, base_url: "${url}", api_key_env: ${name.toUpperCase()}_KEY }`;
  const two = ["accounts:", account("acme", rig.sandbox.url), account("northwind", rig.sandbox.url)].join(
    "\n",
  );
  return { dir, port, env, two, account, sandbox: rig.sandbox.url };
});
it.override({ sandboxOptions: { seed: 15, start: "2026-08-01", days: 8, accounts: 1, callsPerDay: 20 } });

/** `--version`'s line, from the files themselves: package.json, the last migration, the lock's dbt-core. */
async function expectedVersionLine(): Promise<string> {
  const { version } = JSON.parse(await readFile("package.json", "utf8")) as { version: string };
  const schema = (await readdir("sql/migrations")).sort().at(-1)!.slice(0, 4);
  const dbt = /dbt-core==([0-9.]+)/.exec(await readFile("dbt/requirements.lock", "utf8"))![1];
  return `telecom-etl ${version} (warehouse schema ${schema}, dbt-core ${dbt})`;
}

describe("the ten mistakes: one line each, with its documented exit code", () => {
  it("says each mistake in one line and exits as documented", async ({ setup }) => {
    const { dir, port, account, two, sandbox } = setup;
    const version = await expectedVersionLine();
    const mistakes: Mistake[] = [
      {
        mistake: "a typo in the API URL: the host does not resolve",
        args: ["run"],
        config: `accounts:\n${account("acme", "http://no-such-host.invalid")}\n`,
        code: 2,
        stdout:
          "  stopped: account acme: cannot reach http://no-such-host.invalid: its host name does not resolve (ENOTFOUND); check the account's base_url for a typo",
      },
      {
        mistake: "a closed port: every connection refused",
        args: ["run"],
        config: `accounts:\n${account("acme", `http://127.0.0.1:${port}`)}\n`,
        code: 2,
        stdout: `  stopped: account acme: cannot reach http://127.0.0.1:${port}: the connection was refused (ECONNREFUSED): nothing listens there; check the host and port of the account's base_url, and that the platform is up`,
      },
      {
        mistake: "a key the platform does not know",
        args: ["run"],
        config: `accounts:\n${account("acme", sandbox)}\n`,
        env: { ACME_KEY: "0".repeat(32) },
        code: 2,
        stdout:
          /^ {2}stopped: account acme: the platform rejected the API key \(401 Unauthorized: "Unauthorized"\) on GET \S+; check the API key in env var ACME_KEY$/,
      },
      {
        mistake:
          "another account's key unset, --accounts naming one whose key is set: not a mistake any more",
        args: ["run", "--accounts", "northwind"],
        config: two,
        env: { ACME_KEY: undefined },
        code: 0,
        stdout: /^ {2}northwind\/cdrs +succeeded +windows 3\/3 loaded/,
      },
      {
        mistake: "the key's variable unset",
        args: ["run", "--accounts", "acme"],
        config: two,
        env: { ACME_KEY: undefined },
        code: 2,
        stderr:
          "telecom-etl: account acme: env var ACME_KEY is not set; set it to the account's API key in the loader's environment",
      },
      {
        mistake: "the key's variable empty (ACME_KEY= in an env file)",
        args: ["run"],
        config: two,
        env: { ACME_KEY: "" },
        code: 2,
        stderr:
          'telecom-etl: account acme: env var ACME_KEY is empty; set it to the account\'s API key (an env file line "ACME_KEY=" sets it to nothing)',
      },
      {
        mistake: "a day that does not exist in a flag",
        args: ["run", "--until", "2026-02-30"],
        config: two,
        code: 2,
        stderr: "telecom-etl: --until: 2026-02-30 is not a real date (February 2026 has 28 days)",
      },
      {
        mistake: "a day that does not exist in the config",
        args: ["run"],
        config: `start_date: 2026-02-30\n${two}`,
        env: { TELECOM_ETL_START_DATE: undefined },
        code: 2,
        stderr: "telecom-etl: config: start_date: 2026-02-30 is not a real date (February 2026 has 28 days)",
      },
      {
        mistake: "a YAML syntax error: an indentation off by one",
        args: ["run"],
        config: `accounts:\n  - name: acme\n    base_url: "${sandbox}"\n   api_key_env: ACME_KEY\n`,
        code: 2,
        stderr: `telecom-etl: config: ${path.join(dir, "case-9", "telecom-etl.yaml")} line 4 is not valid YAML: "   api_key_env: ACME_KEY" (Sequence item without - indicator)`,
      },
      {
        mistake: "the config path is a directory (docker compose made it: the mounted file was missing)",
        args: ["run"],
        config: { directory: true },
        code: 2,
        stderr: `telecom-etl: config: ${path.join(dir, "case-10", "telecom-etl.yaml")} is a directory, not a file (docker compose creates an empty directory where the file it should mount is missing): put the config file on the host path it mounts, or point --config / TELECOM_ETL_CONFIG at the file`,
      },
      {
        mistake: "a backfill --to after today: cut, said in a note",
        args: ["backfill", "--streams", "cdrs", "--from", "2026-08-08", "--to", "2026-08-31"],
        config: two,
        code: 0,
        stdout: "  note: --to 2026-08-31 is after today (2026-08-09, UTC): cut to 2026-08-09",
      },
      {
        mistake: "asking for the version",
        args: ["--version"],
        code: 0,
        stdout: version,
      },
    ];
    for (const [index, m] of mistakes.entries()) {
      const folder = path.join(dir, `case-${index + 1}`);
      await mkdir(folder);
      const file = path.join(folder, "telecom-etl.yaml");
      if (typeof m.config === "string") await writeFile(file, m.config);
      else if (m.config !== undefined) await mkdir(file);
      const started = Date.now();
      const result = await runCli(m.args, {
        env: { ...setup.env, ...(m.config === undefined ? {} : { TELECOM_ETL_CONFIG: file }), ...m.env },
        timeoutMs: 60_000,
      });
      const seconds = (Date.now() - started) / 1000;
      const said = `${m.mistake}:\n${result.stdout}\n${result.stderr.slice(-3000)}`;
      expect(result.code, said).toBe(m.code);
      // A log record is a JSON line; every other line of stderr is said to the operator.
      const stderr = result.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("{"));
      expect(stderr, said).toEqual(m.stderr === undefined ? [] : [m.stderr]);
      if (m.stdout !== undefined) {
        const lines = result.stdout.split("\n");
        const matching = lines.filter((line) =>
          typeof m.stdout === "string" ? line === m.stdout : m.stdout!.test(line),
        );
        expect(matching, said).toHaveLength(1);
      }
      // Nothing is retried for long and said again: the unreachable hosts stop at once.
      expect(result.stdout + result.stderr, said).not.toMatch(/gave up after/);
      expect(seconds, said).toBeLessThan(20);
    }
  });
});
