import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { arch, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The clone's launcher (`./telecom-etl`) under a `node` older than 22.12 first on PATH, the
 * machine's own Node 20 where it has one (the reproduction): a copy of the clone made of
 * the launcher, the built CLI and make's Node 22 (this test's node), run from another folder.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const work = mkdtempSync(path.join(tmpdir(), "launcher-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A folder holding only a `node` that is older than 22.12: the machine's, else one that says so. */
function oldNodeFolder(): string {
  const dir = path.join(work, "old-node");
  mkdirSync(dir);
  const machine = spawnSync("/usr/bin/node", ["--version"], { encoding: "utf8" });
  const version = /^v(\d+)\.(\d+)/.exec(machine.stdout ?? "");
  if (version && (Number(version[1]) < 22 || (Number(version[1]) === 22 && Number(version[2]) < 12))) {
    symlinkSync("/usr/bin/node", path.join(dir, "node"));
  } else {
    writeFileSync(path.join(dir, "node"), "#!/bin/sh\necho v20.11.1\n");
    chmodSync(path.join(dir, "node"), 0o755);
  }
  return dir;
}

/** A clone with the launcher, the built CLI (linked) and, unless `withNode22` is false, make's Node 22. */
function clone(name: string, options: { withNode22?: boolean; built?: boolean } = {}): string {
  const dir = path.join(work, name);
  mkdirSync(dir);
  copyFileSync(path.join(ROOT, "telecom-etl"), path.join(dir, "telecom-etl"));
  chmodSync(path.join(dir, "telecom-etl"), 0o755);
  if (options.built !== false) symlinkSync(path.join(ROOT, "dist"), path.join(dir, "dist"));
  if (options.withNode22 !== false) {
    const machineArch = arch() === "x64" ? "x64" : arch();
    const bin = path.join(dir, `.make/node22/node_modules/node-linux-${machineArch}/bin`);
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, path.join(bin, "node"));
  }
  return dir;
}

const oldNode = oldNodeFolder();
const PATH = `${oldNode}:/usr/bin:/bin`;

function launch(program: string, args: string[], env: Record<string, string> = { PATH }) {
  return spawnSync(program, args, {
    cwd: work,
    env: { HOME: work, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("./telecom-etl", () => {
  it("runs the CLI with make's Node 22 when the node on PATH is older, from any folder", () => {
    expect(launch(path.join(oldNode, "node"), ["--version"]).stdout).toMatch(
      /^v(1\d|2[01]|22\.(\d|1[01])\.)/,
    );
    const dir = clone("clone");
    const result = launch(path.join(dir, "telecom-etl"), ["--version"]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /^telecom-etl \d+\.\d+\.\d+ \(warehouse schema \d{4}, dbt-core [\d.]+\)\n$/,
    );
    // The cron and systemd job, scripts/nightly.sh, through the launcher too.
    mkdirSync(path.join(dir, "scripts"));
    copyFileSync(path.join(ROOT, "scripts/nightly.sh"), path.join(dir, "scripts/nightly.sh"));
    const nightly = launch("/bin/bash", [path.join(dir, "scripts/nightly.sh"), "--help"]);
    expect(nightly.status).toBe(0);
    expect(nightly.stdout).toContain("Usage: telecom-etl nightly");
  });

  it("finds its clone through a symlink, and passes the CLI's exit code on", () => {
    const dir = clone("linked");
    mkdirSync(path.join(work, "bin"));
    symlinkSync(path.join(dir, "telecom-etl"), path.join(work, "bin", "telecom-etl"));
    expect(launch(path.join(work, "bin", "telecom-etl"), ["--version"]).status).toBe(0);
    const usage = launch(path.join(work, "bin", "telecom-etl"), ["--no-such-flag"]);
    expect(usage.status).toBe(2);
  });

  it("uses the node on PATH when it is 22.12 or newer", () => {
    const dir = clone("no-make-node", { withNode22: false });
    const path22 = path.join(work, "node22-on-path");
    mkdirSync(path22);
    symlinkSync(process.execPath, path.join(path22, "node"));
    const result = launch(path.join(dir, "telecom-etl"), ["--version"], { PATH: `${path22}:/usr/bin:/bin` });
    expect(result.status).toBe(0);
  });

  it("without a Node 22.12+ or without the build: one line naming make setup, exit 2", () => {
    const noNode = launch(path.join(clone("no-node", { withNode22: false }), "telecom-etl"), ["--version"]);
    expect(noNode.status).toBe(2);
    expect(noNode.stderr).toMatch(
      /^telecom-etl: needs Node\.js 22\.12 or newer \(v20[^\n]*run make setup in [^\n]*\n$/,
    );
    const notBuilt = launch(path.join(clone("not-built", { built: false }), "telecom-etl"), ["--version"]);
    expect(notBuilt.status).toBe(2);
    expect(notBuilt.stderr).toMatch(/^telecom-etl: the CLI is not built [^\n]*run make setup in [^\n]*\n$/);
    expect(existsSync(path.join(ROOT, "telecom-etl"))).toBe(true);
  });
});
