import { execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { collect } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/**
 * The product as a user installs it: `npm pack` of the clone, `npm install -g` of the tarball into
 * a temporary prefix, then the installed `telecom-etl` from another folder: `--version`, `sandbox`
 * refused (the package ships without it), `check` against the sandbox before and after `setup`
 * (dbt's Python environment from the lock, in the package's state folder).
 */

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The npm beside the Node running the suite when there is one, else the one on PATH. */
const PATH = `${path.dirname(process.execPath)}:${process.env.PATH ?? ""}`;

/** The oracles, read from the files that define them, not from the program. */
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string })
  .version;
const SCHEMA = readdirSync(path.join(ROOT, "sql/migrations"))
  .filter((f) => f.endsWith(".sql"))
  .sort()
  .at(-1)!
  .slice(0, 4);
const DBT_CORE = /^dbt-core==([^\s\\]+)/m.exec(
  readFileSync(path.join(ROOT, "dbt/requirements.lock"), "utf8"),
)![1]!;

interface Installed {
  readonly folder: string;
  readonly prefix: string;
  /** The environment every command gets (the key and warehouse included, for the first tests). */
  readonly base: Record<string, string>;
  readonly files: readonly string[];
  /** Runs the installed `telecom-etl` in the user's folder, with a minimal environment plus `env`. */
  readonly cli: (
    args: readonly string[],
    env?: Record<string, string>,
    timeoutMs?: number,
  ) => ReturnType<typeof collect>;
}

const it = fixtureTest.extend("installed", { scope: "file" }, async ({ rig }, { onCleanup }) => {
  const folder = await mkdtemp("/tmp/telecom-etl-pack-");
  onCleanup(() => rm(folder, { recursive: true, force: true }));
  // The embedded Postgres's user must be able to enter it, as for any folder a user works in.
  await chmod(folder, 0o755);
  const env = { ...process.env, PATH };
  const packed = await run("npm", ["pack", "--json", "--pack-destination", folder], {
    cwd: ROOT,
    env,
    maxBuffer: 16 << 20,
  });
  const [tarball] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  const prefix = path.join(folder, "prefix");
  const install = ["install", "-g", "--prefix", prefix, path.join(folder, tarball!.filename)];
  await run("npm", [...install, "--no-audit", "--no-fund", "--prefer-offline"], { env, maxBuffer: 16 << 20 });
  const work = path.join(folder, "work");
  await mkdir(work);
  await writeFile(
    path.join(work, "telecom-etl.yaml"),
    `accounts:\n  - { name: acme, base_url: "${rig.sandbox.url}", api_key_env: ACME_API_KEY }\n`,
  );
  const base = {
    PATH,
    HOME: folder,
    DATABASE_URL: rig.db.url,
    ACME_API_KEY: rig.sandbox.world.accounts[0]!.apiKey,
    TELECOM_ETL_HOME: path.join(folder, "state"),
    TELECOM_ETL_NOW: new Date(rig.sandbox.runtime.clock.now()).toISOString(),
    TELECOM_ETL_ALLOW_PAST_NOW: "1",
  };
  const cli: Installed["cli"] = (args, extra = {}, timeoutMs = 120_000) =>
    collect(
      spawn(path.join(prefix, "bin", "telecom-etl"), args, {
        cwd: work,
        env: { ...base, ...extra },
        stdio: ["ignore", "pipe", "pipe"],
      }),
      timeoutMs,
    );
  return {
    folder,
    prefix,
    base,
    files: tarball!.files.map((f) => f.path),
    cli,
  } satisfies Installed as Installed;
});
it.override({ sandboxOptions: { seed: 36, start: "2026-08-01", days: 2, accounts: 1, callsPerDay: 10 } });

describe("the packed product (npm pack, npm install -g)", () => {
  it("ships the loader, its migrations, dbt project and the platform's contract; not the sandbox, the benchmarks or the tests", ({
    installed,
  }) => {
    const { files } = installed;
    expect(files).toContain("dist/src/cli/bin.js");
    expect(files).toContain("dbt/dbt_project.yml");
    expect(files).toContain("dbt/requirements.lock");
    expect(files).toContain("LICENSE");
    const migrations = readdirSync(path.join(ROOT, "sql/migrations")).map((f) => `sql/migrations/${f}`);
    expect(files.filter((f) => f.startsWith("sql/")).sort()).toEqual(migrations.sort());
    expect(
      files.filter((f) => /^(dist\/src\/sandbox|dist\/bench|bench|test|src|packages)\//.test(f)),
    ).toEqual([]);
    // The platform's contract is the one workspace package it bundles (built, without its sources),
    // with zod, its one dependency, which npm bundles with it; the sandbox package (a dev
    // dependency) is not there, nor any other dependency.
    expect(files).toContain("node_modules/@telecom-etl/platform/dist/index.js");
    expect(files).toContain("node_modules/@telecom-etl/platform/package.json");
    expect(files.filter((f) => f.startsWith("node_modules/@telecom-etl/platform/src/"))).toEqual([]);
    const bundled = new Set(files.filter((f) => f.startsWith("node_modules/")).map((f) => f.split("/")[1]));
    expect([...bundled].sort()).toEqual(["@telecom-etl", "zod"]);
    expect(files.filter((f) => /^node_modules\/@telecom-etl\/(?!platform\/)/.test(f))).toEqual([]);
  });

  it("prints its version, the warehouse schema and dbt's from any folder", async ({ installed }) => {
    const result = await installed.cli(["--version"]);
    expect(result.stdout.trim()).toBe(
      `telecom-etl ${VERSION} (warehouse schema ${SCHEMA}, dbt-core ${DBT_CORE})`,
    );
  });

  it("refuses `sandbox` in one line that says where the sandbox lives, exit 2", async ({ installed }) => {
    const result = await installed.cli(["sandbox"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      /^telecom-etl: the sandbox is not part of this installation .*`\.\/telecom-etl sandbox`$/,
    );
  });

  it("check names `telecom-etl setup` until dbt is set up; after setup every item passes", async ({
    installed,
  }) => {
    const before = await installed.cli(["check"], {}, 180_000);
    expect(before.code, before.stderr.slice(-2000)).toBe(2);
    expect(before.stdout).toMatch(
      /^fail +dbt: installed: no dbt in .*\/state\/python-[0-9a-f]{12}\/bin: run telecom-etl setup /m,
    );
    const setup = await installed.cli(["setup"], {}, 600_000);
    expect(setup.code, setup.stderr.slice(-2000)).toBe(0);
    expect(setup.stdout).toMatch(
      /^dbt's Python environment for this package: installed in .*\/state\/python-[0-9a-f]{12}$/m,
    );
    const again = await installed.cli(["setup"]);
    expect(again.stdout).toMatch(/: already installed in /);
    const after = await installed.cli(["check"], {}, 180_000);
    expect(after.code, after.stdout + after.stderr.slice(-2000)).toBe(0);
    expect(after.stdout).toMatch(
      new RegExp(`^ok +dbt: installed: dbt ${DBT_CORE.replaceAll(".", "\\.")} `, "m"),
    );
    expect(after.stdout).toMatch(/^ok +dbt: profile: /m);
    expect(after.stdout).toMatch(/^ok +account acme: stream cdrs: /m);
  });

  it("a first night from a new folder: init, .env, check, nightly and report exit 0", async ({
    installed,
    rig,
  }) => {
    const project = path.join(installed.folder, "first-night");
    const { DATABASE_URL, ACME_API_KEY, ...rest } = installed.base;
    const inProject = (args: readonly string[], timeoutMs = 600_000) =>
      collect(
        spawn(path.join(installed.prefix, "bin", "telecom-etl"), args, {
          cwd: project,
          env: rest,
          stdio: ["ignore", "pipe", "pipe"],
        }),
        timeoutMs,
      );
    await mkdir(project);
    const init = await inProject(["init", "--account", "acme", "--base-url", rig.sandbox.url]);
    expect(init.code, init.stderr).toBe(0);
    await writeFile(
      path.join(project, ".env"),
      `ACME_API_KEY=${ACME_API_KEY}\nDATABASE_URL=${DATABASE_URL}\n`,
      {
        mode: 0o600,
      },
    );
    const check = await inProject(["check"]);
    expect(check.code, check.stdout + check.stderr.slice(-2000)).toBe(0);
    const nightly = await inProject(["nightly"]);
    expect(nightly.code, nightly.stderr.slice(-3000)).toBe(0);
    const report = await inProject(["report", "--out", path.join(project, "night.html")]);
    expect(report.code, report.stderr.slice(-2000)).toBe(0);
    const page = await readFile(path.join(project, "night.html"), "utf8");
    expect(page).toMatch(/<svg/);
    for (const output of [init, check, nightly, report])
      expect(output.stdout + output.stderr).not.toContain(ACME_API_KEY);
  });
});
