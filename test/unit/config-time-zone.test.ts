import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { accountTimeZones, timeZoneProblem } from "../../src/core/account-time-zone.js";
import { UsageError } from "../../src/core/errors.js";

async function configFile(text: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "cfg-tz-"));
  const file = path.join(dir, "telecom-etl.yaml");
  await writeFile(file, text);
  return file;
}

const env = { ACME_KEY: "k-123456", OTHER_KEY: "k-654321" };

function accounts(extra: string): string {
  return [
    "accounts:",
    "  - name: acme",
    "    base_url: http://127.0.0.1:4010",
    "    api_key_env: ACME_KEY",
    "    sub_accounts: [11, 12]",
    extra,
    "  - name: other",
    "    base_url: http://127.0.0.1:4010",
    "    api_key_env: OTHER_KEY",
  ].join("\n");
}

async function refusal(extra: string): Promise<string> {
  const error = await loadConfig({ file: await configFile(accounts(extra)) }, env).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(UsageError);
  return (error as Error).message;
}

describe("account time zones", () => {
  it("default to UTC; sub-accounts inherit the master's zone unless they set their own", async () => {
    const file = await configFile(
      accounts('    timezone: America/Los_Angeles\n    sub_account_timezones: {"12": Asia/Kolkata}'),
    );
    const config = await loadConfig({ file }, env);
    expect(accountTimeZones(config.accounts)).toEqual([
      { account: "acme", timeZone: "America/Los_Angeles" },
      { account: "acme-sub-11", timeZone: "America/Los_Angeles" },
      { account: "acme-sub-12", timeZone: "Asia/Kolkata" },
      { account: "other", timeZone: "UTC" },
    ]);
  });

  it("refuses a fixed offset in one line naming the account and the fix", async () => {
    for (const offset of ["+02:00", "UTC+04:00", "GMT-5", "-0330"]) {
      const message = await refusal(`    timezone: "${offset}"`);
      expect(message.split("\n")).toHaveLength(1);
      expect(message).toContain("account acme");
      expect(message).toContain("fixed UTC offset");
      expect(message).toContain("Europe/Berlin");
    }
  });

  it("refuses a name that is no IANA zone, and a zone for a sub-account the account does not list", async () => {
    expect(await refusal("    timezone: Mars/Olympus_Mons")).toMatch(
      /^config: account acme: timezone "Mars\/Olympus_Mons" is not an IANA time zone name; use one such as/,
    );
    expect(await refusal('    sub_account_timezones: {"13": Asia/Kolkata}')).toMatch(
      /^config: account acme: sub_account_timezones names sub-account 13, which its sub_accounts does not list/,
    );
    expect(await refusal('    sub_account_timezones: {"11": "+05:30"}')).toContain(
      'sub_account_timezones.11 "+05:30" is a fixed UTC offset',
    );
  });

  it("accepts IANA names, UTC and the Etc/GMT zones", () => {
    for (const zone of ["Asia/Kolkata", "America/Los_Angeles", "UTC", "Etc/GMT-2", "Europe/Berlin"]) {
      expect(timeZoneProblem("acme", zone)).toBeUndefined();
    }
  });
});
