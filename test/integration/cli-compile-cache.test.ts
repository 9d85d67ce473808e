import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

/**
 * The CLI keeps V8's compiled code of its modules in the OS's temporary folder (decision 0115): a
 * command's start compiles nothing a previous command of the same build compiled. Each run gets a
 * temporary folder of its own (TMPDIR), so what is found there is this command's doing.
 */
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** Entries under `<TMPDIR>/node-compile-cache` after `telecom-etl --version` with `env`. */
async function cacheAfterVersion(env: Record<string, string> = {}): Promise<string[]> {
  const folder = await mkdtemp(path.join(tmpdir(), "compile-cache-"));
  folders.push(folder);
  const result = await runCli(["--version"], { env: { TMPDIR: folder, ...env } });
  expect(result.code, result.stderr).toBe(0);
  return readdir(path.join(folder, "node-compile-cache"), { recursive: true }).catch(() => []);
}

describe("the CLI's compile cache", () => {
  it("is written to the temporary folder by a command", async () => {
    expect((await cacheAfterVersion()).length).toBeGreaterThan(0);
  });

  it("stays off with NODE_DISABLE_COMPILE_CACHE=1", async () => {
    expect(await cacheAfterVersion({ NODE_DISABLE_COMPILE_CACHE: "1" })).toEqual([]);
  });
});
