import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, redactedConfig, settingsOf } from "../../src/config/config.js";
import { UsageError } from "../../src/core/errors.js";
import { STREAM_NAMES } from "../../src/streams/registry.js";

async function configFile(text: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "cfg-"));
  const file = path.join(dir, "telecom-etl.yaml");
  await writeFile(file, text);
  return file;
}

const minimalEnv = { TELECOM_API_URL: "http://127.0.0.1:4010", TELECOM_API_KEY: "k-123456" };

describe("loadConfig", () => {
  it("builds a single default account from TELECOM_API_URL and TELECOM_API_KEY", async () => {
    const config = await loadConfig({}, minimalEnv);
    expect(config.accounts).toHaveLength(1);
    expect(config.accounts[0]).toMatchObject({
      name: "default",
      baseUrl: "http://127.0.0.1:4010",
      apiKeyEnv: "TELECOM_API_KEY",
    });
    expect(config.accounts[0]?.apiKey.reveal()).toBe("k-123456");
    expect(config).toMatchObject({ windowDays: 1, lookbackDays: 3, perPage: 100 });
  });

  it("a base URL ending in the API's version path is refused in one line naming the cause and the fix", async () => {
    for (const [url, fixed] of [
      ["http://127.0.0.1:4010/v1", "http://127.0.0.1:4010/"],
      ["https://api.example.com/telecom/v1/", "https://api.example.com/telecom"],
    ] as const) {
      const error = await loadConfig({}, { ...minimalEnv, TELECOM_API_URL: url }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toBe(
        `config: accounts.0.base_url: ${url} ends in the API's version path /v1, which every request adds itself: set the account's base_url (or TELECOM_API_URL) to ${fixed}`,
      );
    }
    // Credentials in the URL stay out of the message.
    const secret = "https://user:hunter2@api.example.com/v1?region=eu&api_key=sk_987";
    const refused = await loadConfig({}, { ...minimalEnv, TELECOM_API_URL: secret }).catch((e: unknown) => e);
    expect((refused as Error).message).toBe(
      "config: accounts.0.base_url: https://***:***@api.example.com/v1?region=eu&api_key=*** ends in the API's version path /v1, which every request adds itself: set the account's base_url (or TELECOM_API_URL) to https://***:***@api.example.com/?region=eu&api_key=***",
    );
    // A path that only contains a version-like segment elsewhere is the user's own.
    const config = await loadConfig({}, { ...minimalEnv, TELECOM_API_URL: "https://x.example/v1/proxy" });
    expect(config.accounts[0]?.baseUrl).toBe("https://x.example/v1/proxy");
  });

  it("gives one line per problem, naming the field path and what is expected", async () => {
    const file = await configFile(
      [
        "window_days: 0",
        "lookback_days: many",
        "accounts:",
        "  - name: Main Account",
        "    base_url: ftp://example",
        "    api_key_env: main_key",
        "  - name: other",
        "    base_url: https://api.example.com",
        "    api_key_env: OTHER_KEY",
        "    surprise: 1",
      ].join("\n"),
    );
    const error = await loadConfig({ file }, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    const lines = (error as Error).message.split("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^config: window_days: .*>=1/),
        expect.stringMatching(/^config: lookback_days: .*number/),
        expect.stringMatching(/^config: accounts\.0\.name: expected lower-case letters/),
        expect.stringMatching(/^config: accounts\.0\.base_url: expected an http\(s\) URL/),
        expect.stringMatching(
          /^config: accounts\.0\.api_key_env: expected the NAME of an environment variable/,
        ),
        expect.stringMatching(/^config: accounts\.1: .*surprise/),
      ]),
    );
    expect(lines).toHaveLength(6);
  });

  it("names the account and the env var when a key is missing", async () => {
    const file = await configFile(
      "accounts:\n  - name: main\n    base_url: https://api.example.com\n    api_key_env: MAIN_KEY\n",
    );
    await expect(loadConfig({ file }, {})).rejects.toThrow(
      new UsageError(
        "account main: env var MAIN_KEY is not set; set it to the account's API key in the loader's environment",
      ),
    );
    await expect(loadConfig({ file }, { MAIN_KEY: "" })).rejects.toThrow(
      new UsageError(
        'account main: env var MAIN_KEY is empty; set it to the account\'s API key (an env file line "MAIN_KEY=" sets it to nothing)',
      ),
    );
  });

  it("requires the keys of the accounts a command touches only", async () => {
    const file = await configFile(
      [
        "accounts:",
        "  - { name: acme, base_url: https://a.example.com, api_key_env: ACME_KEY, sub_accounts: [42] }",
        "  - { name: northwind, base_url: https://n.example.com, api_key_env: NORTHWIND_KEY }",
      ].join("\n"),
    );
    const config = await loadConfig(
      { file, touchedAccounts: ["northwind"] },
      { NORTHWIND_KEY: "nw-key-123456" },
    );
    expect(config.accounts.map((a) => [a.name, a.apiKey.reveal()])).toEqual([
      ["acme", ""],
      ["northwind", "nw-key-123456"],
    ]);
    // A sub-account is read with its master's key: touching it touches the master.
    await expect(
      loadConfig({ file, touchedAccounts: ["acme-sub-42"] }, { NORTHWIND_KEY: "nw-key-123456" }),
    ).rejects.toThrow(/^account acme: env var ACME_KEY is not set/);
    await expect(loadConfig({ file }, { NORTHWIND_KEY: "nw-key-123456" })).rejects.toThrow(
      /^account acme: env var ACME_KEY is not set/,
    );
  });

  it("says a config path is a directory (what docker compose makes of a missing mounted file)", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "telecom-etl-config-dir-"));
    await expect(loadConfig({ file: dir }, minimalEnv)).rejects.toThrow(
      new UsageError(
        `config: ${dir} is a directory, not a file (docker compose creates an empty directory where the file it should mount is missing): put the config file on the host path it mounts, or point --config / TELECOM_ETL_CONFIG at the file`,
      ),
    );
  });

  it("shows a YAML syntax error's line whole: its number and its text", async () => {
    const file = await configFile(
      "accounts:\n  - name: acme\n    base_url: https://a.example.com\n   api_key_env: ACME_KEY\n",
    );
    await expect(loadConfig({ file }, {})).rejects.toThrow(
      new UsageError(
        `config: ${file} line 4 is not valid YAML: "   api_key_env: ACME_KEY" (Sequence item without - indicator)`,
      ),
    );
  });

  it("rejects a file that is not YAML or does not exist, in one line", async () => {
    const file = await configFile("accounts: [unclosed\n");
    await expect(loadConfig({ file }, {})).rejects.toThrow(/^config: .* is not valid YAML: /);
    await expect(loadConfig({ file: "/nonexistent/telecom-etl.yaml" }, {})).rejects.toThrow(
      "config: cannot read /nonexistent/telecom-etl.yaml; check --config or TELECOM_ETL_CONFIG",
    );
  });

  it("refuses a start_date that is not a calendar day, naming the field", async () => {
    const said = {
      "2026-13-01": "config: start_date: 2026-13-01 is not a real date (months run from 01 to 12)",
      "2026-02-31": "config: start_date: 2026-02-31 is not a real date (February 2026 has 28 days)",
      "2026-2-1": 'config: start_date: expected a date YYYY-MM-DD, got "2026-2-1"',
    };
    for (const [bad, message] of Object.entries(said)) {
      await expect(loadConfig({}, { ...minimalEnv, TELECOM_ETL_START_DATE: bad }), bad).rejects.toThrow(
        new UsageError(message),
      );
    }
    const leap = await loadConfig({}, { ...minimalEnv, TELECOM_ETL_START_DATE: "2028-02-29" });
    expect(leap.startDate).toBe("2028-02-29");
  });

  it("refuses a key with characters no API key has, without showing it", async () => {
    const error = await loadConfig({}, { ...minimalEnv, TELECOM_API_KEY: "abc123\n" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      "account default: env var TELECOM_API_KEY holds spaces, line breaks or other characters an API key cannot have; check how it is set",
    );
  });

  it("gives the adaptive rate a floor: a tenth of the maximum unless configured", async () => {
    const file = await configFile(
      [
        "accounts:",
        "  - { name: a, base_url: 'https://x.example', api_key_env: A_KEY, rate: { requests_per_second: 20 } }",
        "  - { name: b, base_url: 'https://x.example', api_key_env: B_KEY,",
        "      rate: { requests_per_second: 20, min_requests_per_second: 5 } }",
      ].join("\n"),
    );
    const config = await loadConfig({ file }, { A_KEY: "ka", B_KEY: "kb" });
    expect(config.accounts.map((a) => a.rate.minRequestsPerSecond)).toEqual([2, 5]);
  });

  it("lets the environment override the file", async () => {
    const file = await configFile("window_days: 2\nlookback_days: 5\n");
    const config = await loadConfig({ file }, { ...minimalEnv, TELECOM_ETL_LOOKBACK_DAYS: "7" });
    expect(config.windowDays).toBe(2);
    expect(config.lookbackDays).toBe(7);
  });

  it("never shows a secret in the redacted view or when serialised", async () => {
    const config = await loadConfig({}, { ...minimalEnv, DATABASE_URL: "postgres://etl:hunter2@db:5432/wh" });
    const shown = JSON.stringify(redactedConfig(config));
    expect(shown).not.toContain("k-123456");
    expect(shown).not.toContain("hunter2");
    expect(JSON.stringify(config)).not.toContain("k-123456");
    expect(String(config.accounts[0]?.apiKey)).toBe("***");
  });

  it("refuses --database-url with a password (it shows in ps) in one line that does not repeat it", async () => {
    for (const url of ["postgres://etl:hunter2@db:5432/wh", "postgres://etl@db/wh?password=hunter2"]) {
      const refused = loadConfig({ databaseUrl: url }, minimalEnv);
      await expect(refused).rejects.toThrow(UsageError);
      const message = await refused.catch((error: Error) => error.message);
      expect(message).toMatch(/^--database-url carries a password.*DATABASE_URL.*database_password_file/);
      expect(message).not.toContain("hunter2");
      expect(message).not.toContain("\n");
    }
    const withoutPassword = await loadConfig({ databaseUrl: "postgres://etl@db:5432/wh" }, minimalEnv);
    expect(withoutPassword.databaseUrl).toBe("postgres://etl@db:5432/wh");
    // The environment is not on the command line: a password there is fine.
    const fromEnv = await loadConfig({}, { ...minimalEnv, DATABASE_URL: "postgres://etl:hunter2@db/wh" });
    expect(fromEnv.databaseUrl).toBe("postgres://etl:hunter2@db/wh");
  });

  it("settles windows after 72 h and allows 1% rejects, a 50% shrink and 5% missing charges unless told otherwise, per stream too", async () => {
    const defaults = await loadConfig({}, minimalEnv);
    const holds = { maxShrinkShare: 0.5, maxMissingChargeShare: 0.05, maxOutsideWindowShare: 0 };
    expect(settingsOf(defaults, "cdrs")).toEqual({ settleHours: 72, maxRejectShare: 0.01, ...holds });
    expect(defaults.accounts[0]?.apiRevision).toBe("auto");
    const file = await configFile(
      [
        "settle_hours: 48",
        "max_reject_share: 0.05",
        "stream_options:",
        "  short_link_metrics: { settle_hours: 0, max_shrink_share: 0.9 }",
        "  cdrs: { max_reject_share: 0, max_missing_charge_share: 0.2, max_outside_window_share: 0.02 }",
        "accounts:",
        "  - { name: a, base_url: 'https://x.example', api_key_env: A_KEY, api_revision: '2026' }",
      ].join("\n"),
    );
    const config = await loadConfig({ file }, { A_KEY: "ka" });
    expect(settingsOf(config, "short_link_metrics")).toEqual({
      settleHours: 0,
      maxRejectShare: 0.05,
      ...holds,
      maxShrinkShare: 0.9,
    });
    expect(settingsOf(config, "cdrs")).toEqual({
      settleHours: 48,
      maxRejectShare: 0,
      ...holds,
      maxMissingChargeShare: 0.2,
      maxOutsideWindowShare: 0.02,
    });
    expect(settingsOf(config, "invoices")).toEqual({ settleHours: 48, maxRejectShare: 0.05, ...holds });
    expect(config.accounts[0]?.apiRevision).toBe("2026");
    expect(redactedConfig(config)).toMatchObject({
      settle_hours: 48,
      stream_options: { short_link_metrics: { settle_hours: 0 } },
    });
  });

  it("names the field of a bad settle, reject share, stream option or API revision", async () => {
    const file = await configFile(
      [
        "settle_hours: -1",
        "max_reject_share: 2",
        "stream_options:",
        "  calls: { settle_hours: 1 }",
        "  cdrs: { settle_hour: 1 }",
        "accounts:",
        "  - { name: a, base_url: 'https://x.example', api_key_env: A_KEY, api_revision: '2025' }",
      ].join("\n"),
    );
    const error = await loadConfig({ file }, { A_KEY: "ka" }).catch((e: unknown) => e);
    const lines = (error as Error).message.split("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^config: settle_hours: /),
        expect.stringMatching(/^config: max_reject_share: /),
        `config: stream_options.calls: unknown stream; known: ${STREAM_NAMES.join(", ")}`,
        expect.stringMatching(/^config: stream_options\.cdrs: .*settle_hour/),
        expect.stringMatching(/^config: accounts\.0\.api_revision: .*"2024"\|"2026"\|"auto"/),
      ]),
    );
  });
});
