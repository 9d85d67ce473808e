/**
 * `initProject` (what `telecom-etl init` does once it has its answers): a bad answer is one line
 * naming the flag, nothing is written then, an existing file is refused unless `force`, and the
 * files it writes are the ones the config refers to.
 */
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type InitAnswers, initProject } from "../../src/cli/init-project.js";
import { UsageError } from "../../src/core/errors.js";

async function answers(overrides: Partial<InitAnswers> = {}): Promise<InitAnswers> {
  const dir = path.join(await mkdtemp(path.join(tmpdir(), "init-project-")), "new", "folder");
  return {
    dir,
    accounts: ["acme"],
    baseUrl: "http://127.0.0.1:4010",
    apiRevision: undefined,
    force: false,
    ...overrides,
  };
}

async function refusal(given: InitAnswers): Promise<string> {
  const error = await initProject(given).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(UsageError);
  return (error as Error).message;
}

describe("initProject", () => {
  it("creates the folder and writes both files", async () => {
    const given = await answers({ accounts: ["acme", "acme-eu"] });
    const result = await initProject(given);
    expect(result).toEqual({
      files: [path.join(given.dir, "telecom-etl.yaml"), path.join(given.dir, ".env.example")],
      requiredVariables: ["ACME_API_KEY", "ACME_EU_API_KEY"],
    });
    for (const file of result.files) expect((await stat(file)).isFile()).toBe(true);
  });

  it("a bad answer is one line naming its flag, and nothing is written", async () => {
    const cases: [Partial<InitAnswers>, string][] = [
      [{ accounts: ["Acme", "ok"] }, "init: --account Acme: expected lower-case letters, digits, - or _"],
      [{ accounts: ["a", "b", "a"] }, "init: --account a is given twice; name each account once"],
      [{ baseUrl: "ftp://x" }, "init: --base-url: expected an http(s) URL"],
      [{ accounts: [] }, "init: no account; give one with --account NAME"],
    ];
    for (const [overrides, message] of cases) {
      const given = await answers(overrides);
      expect(await refusal(given)).toBe(message);
      await expect(stat(given.dir)).rejects.toThrow();
    }
    expect(await refusal(await answers({ baseUrl: "http://x/v1" }))).toMatch(
      /^init: --base-url: http:\/\/x\/v1 ends in the API's version path \/v1, .* to http:\/\/x\/$/,
    );
  });

  it("a --dir that is a file, or under one, is one line naming it", async () => {
    const given = await answers();
    await initProject(given);
    const file = path.join(given.dir, "telecom-etl.yaml");
    expect(await refusal({ ...given, dir: file })).toBe(
      `init: --dir ${file} is a file, not a folder; choose another --dir`,
    );
    expect(await refusal({ ...given, dir: path.join(file, "sub") })).toBe(
      `init: cannot write into --dir ${file}/sub (ENOTDIR: no permission, a read-only file system, or a file in its path); choose another --dir`,
    );
  });

  it("an existing file is refused, unchanged, unless force", async () => {
    const given = await answers();
    await initProject(given);
    const config = path.join(given.dir, "telecom-etl.yaml");
    await writeFile(config, "# mine\n");
    expect(await refusal(given)).toBe(
      `init: ${config} and ${path.join(given.dir, ".env.example")} already exist; pass --force to overwrite, or --dir to write elsewhere`,
    );
    expect(await readFile(config, "utf8")).toBe("# mine\n");
    await initProject({ ...given, accounts: ["other"], force: true });
    expect(await readFile(config, "utf8")).toContain("  - name: other\n");
  });
});
