/**
 * The `.env` beside the config: only the variables the config refers to are read, the environment
 * wins, and a file others can read or a line `util.parseEnv` would drop is refused in one line that
 * never shows a value.
 */
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, redactedConfig } from "../../src/config/config.js";
import { applyEnvFile, MAX_ENV_FILE_BYTES, malformedEnvLine } from "../../src/config/env-file.js";
import { UsageError } from "../../src/core/errors.js";

const SECRET = "s3cret-Key-0f-acme-9a8b7c";
/** `ACME_KEY=<secret>\n`, the first line of the oversized file. */
const ACME_LINE = `ACME_KEY=${SECRET}\n`;

/** A folder with `telecom-etl.yaml` naming ACME_KEY and a `.env` of `text`, mode `mode`. */
async function project(text: string, mode = 0o600): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "env-file-"));
  const file = path.join(dir, "telecom-etl.yaml");
  await writeFile(
    file,
    "accounts:\n  - { name: acme, base_url: http://127.0.0.1:4010, api_key_env: ACME_KEY }\n",
  );
  await writeFile(path.join(dir, ".env"), text);
  await chmod(path.join(dir, ".env"), mode);
  return { dir, file };
}

describe("the .env beside the config", () => {
  it("gives the config's variables, not others; a variable already set wins, even empty", async () => {
    const { dir, file } = await project(
      `# keys\nACME_KEY=${SECRET}\nexport DATABASE_URL="postgres://etl@db:5432/w"\nOTHER=1\nTELECOM_ETL_BI_READER_PASSWORD=\n`,
    );
    const env: NodeJS.ProcessEnv = {};
    const config = await loadConfig({ file }, env);
    expect(config.accounts[0]?.apiKey.reveal()).toBe(SECRET);
    expect(config.databaseUrl).toBe("postgres://etl@db:5432/w");
    expect(env.OTHER).toBeUndefined();
    expect(config.envFile).toEqual({
      path: path.join(dir, ".env"),
      loaded: ["ACME_KEY", "DATABASE_URL", "TELECOM_ETL_BI_READER_PASSWORD"],
      ignored: ["OTHER"],
    });
    const shown = JSON.stringify(redactedConfig(config));
    expect(shown).not.toContain(SECRET);
    expect(shown).toContain('"loaded":["ACME_KEY","DATABASE_URL","TELECOM_ETL_BI_READER_PASSWORD"]');

    const set = { ACME_KEY: "from-the-environment", DATABASE_URL: "" };
    const overridden = await loadConfig({ file }, set);
    expect(overridden.accounts[0]?.apiKey.reveal()).toBe("from-the-environment");
    expect(overridden.databaseUrl).toBe("");
    expect(overridden.envFile?.ignored).toEqual(["ACME_KEY", "DATABASE_URL", "OTHER"]);
  });

  it("a file others may read is refused in one line naming chmod 600", async () => {
    const { dir, file } = await project(`ACME_KEY=${SECRET}\n`, 0o644);
    const error = await loadConfig({ file }, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      `.env: ${dir}/.env has mode 0644: other users can read the secrets in it; run chmod 600 ${dir}/.env`,
    );
  });

  it("a file past MAX_ENV_FILE_BYTES is refused in one line before it is read", async () => {
    const { dir } = await project(`${ACME_LINE}# ${"x".repeat(MAX_ENV_FILE_BYTES)}\n`);
    const refusal = applyEnvFile(dir, ["ACME_KEY"], {});
    await expect(refusal).rejects.toThrow(UsageError);
    await expect(refusal).rejects.toThrow(
      `.env: ${dir}/.env is ${MAX_ENV_FILE_BYTES + ACME_LINE.length + 3} bytes, more than the ${MAX_ENV_FILE_BYTES} an env file may have; keep only NAME=value lines in it`,
    );
  });

  it("a line parseEnv would drop is refused by its number, never its text", async () => {
    const { dir } = await project(`ACME_KEY=ok\nACME_KEY : ${SECRET}\n`);
    const error = await applyEnvFile(dir, ["ACME_KEY"], {}).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `.env: ${dir}/.env line 2 is not NAME=value (nor a comment); fix or remove that line`,
    );
    expect((error as Error).message).not.toContain(SECRET);
  });

  it("malformedEnvLine: comments, blanks, export and values over several quoted lines pass", () => {
    expect(
      malformedEnvLine("# c\n\nA=1\nexport B = 2\nC=\"one\ntwo words\nthree\"\nD='x'\n"),
    ).toBeUndefined();
    expect(malformedEnvLine("A=1\nsecret words\n")).toBe(2);
    expect(malformedEnvLine("1A=1\n")).toBe(1);
    expect(malformedEnvLine('A="open\nB=2\n"\nC x\n')).toBe(4);
  });

  it("without a config file, or without .env, nothing is read", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "env-file-none-"));
    expect(await applyEnvFile(dir, ["ACME_KEY"], {})).toBeUndefined();
    const config = await loadConfig({ requireAccounts: false }, {});
    expect(config.envFile).toBeUndefined();
  });
});
