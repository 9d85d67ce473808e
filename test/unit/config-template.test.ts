/**
 * The config `telecom-etl init` writes: it loads through the real loader as written, every setting
 * of the schema is in it once (set or commented), and uncommenting every default it shows changes
 * nothing, so a default in a comment cannot drift from the schema's.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { configFileSchema, loadConfig } from "../../src/config/config.js";
import { unwrapped } from "../../src/config/config-derive.js";
import { apiKeyEnvOf, configTemplate, type TemplateAccount } from "../../src/config/config-template.js";
import { envExampleOf, envVariablesOf } from "../../src/config/env-variables.js";

const ACCOUNTS: TemplateAccount[] = [
  { name: "acme", baseUrl: "https://api.example.com", apiKeyEnv: apiKeyEnvOf("acme") },
  {
    name: "acme-eu",
    baseUrl: "https://eu.example.com",
    apiKeyEnv: apiKeyEnvOf("acme-eu"),
    apiRevision: "2026",
  },
];

const accountShape = (unwrapped(configFileSchema.shape.accounts) as z.ZodArray).element as z.ZodObject;

/** The template with every commented `key: value` line (one that shows a value) made a setting. */
function uncommented(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      const match = /^(\s*)# ([a-z_]+): ([^\s#].*?)(\s+# .*)?$/.exec(line);
      return match ? `${match[1]}${match[2]}: ${match[3]}` : line;
    })
    .join("\n");
}

/** The keys at one indentation, set or commented (`  # key:` / `  key:` / `  - key:`). */
function keysAt(text: string, indent: string): string[] {
  const pattern = new RegExp(`^${indent}(?:# |- )?([a-z_]+):`);
  return text.split("\n").flatMap((line) => pattern.exec(line)?.[1] ?? []);
}

describe("configTemplate", () => {
  const text = configTemplate(ACCOUNTS);

  it("loads through loadConfig as written: the accounts asked for, every other setting its default", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "init-template-"));
    const file = path.join(dir, "telecom-etl.yaml");
    await writeFile(file, text);
    const env = { ACME_API_KEY: "key-of-acme-1", ACME_EU_API_KEY: "key-of-acme-eu-2" };
    const config = await loadConfig({ file }, env);
    expect(config.accounts.map((a) => [a.name, a.baseUrl, a.apiKeyEnv, a.apiRevision])).toEqual([
      ["acme", "https://api.example.com", "ACME_API_KEY", "auto"],
      ["acme-eu", "https://eu.example.com", "ACME_EU_API_KEY", "2026"],
    ]);
    const { accounts: _, ...settings } = configFileSchema.parse(parseYaml(text));
    const { accounts: __, ...defaults } = configFileSchema.parse({});
    expect(settings).toEqual(defaults);
  });

  it("every setting of the schema is there once, at the top and in each account", () => {
    expect(keysAt(text, "").sort()).toEqual(Object.keys(configFileSchema.shape).sort());
    const accountKeys = keysAt(text, "    ").concat(keysAt(text, "  "));
    expect(accountKeys.sort()).toEqual(
      [...Object.keys(accountShape.shape), ...Object.keys(accountShape.shape)].sort(),
    );
  });

  it("uncommenting every default it shows changes nothing", () => {
    const open = uncommented(text);
    expect(open).not.toBe(text);
    // Something was uncommented in every scope: the schema's defaults for the top and the accounts.
    expect(parseYaml(open).window_days).toBe(configFileSchema.shape.window_days.parse(undefined));
    expect(parseYaml(open).accounts[0].rate).toEqual(accountShape.shape.rate!.parse(undefined));
    expect(configFileSchema.parse(parseYaml(open))).toEqual(configFileSchema.parse(parseYaml(text)));
  });

  it("names a key variable the schema accepts for any account name", () => {
    for (const [name, expected] of [
      ["acme", "ACME_API_KEY"],
      ["acme-eu_2", "ACME_EU_2_API_KEY"],
      ["9lives", "ACCOUNT_9LIVES_API_KEY"],
    ] as const) {
      expect(apiKeyEnvOf(name)).toBe(expected);
      expect(accountShape.shape.api_key_env!.safeParse(expected).success).toBe(true);
    }
  });
});

describe("envExampleOf", () => {
  it("names exactly the variables the config refers to: keys to set, the optional ones commented", () => {
    const variables = envVariablesOf([...ACCOUNTS, { name: "acme-us", apiKeyEnv: "ACME_API_KEY" }]);
    const text = envExampleOf(variables);
    const set = text.split("\n").flatMap((line) => /^([A-Z_0-9]+)=$/.exec(line)?.[1] ?? []);
    const commented = text.split("\n").flatMap((line) => /^# ([A-Z_0-9]+)=$/.exec(line)?.[1] ?? []);
    expect(set).toEqual(["ACME_API_KEY", "ACME_EU_API_KEY"]);
    expect(commented).toEqual(["DATABASE_URL", "TELECOM_ETL_BI_READER_PASSWORD"]);
    expect(text).toContain("# the API key of accounts acme, acme-us\nACME_API_KEY=");
  });
});
