import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { postgresPidsUnder, runCli } from "../helpers/cli.js";

/** A fresh working directory holding `config.yaml` with `text`. */
async function configDir(text: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "telecom-etl-subs-"));
  await chmod(dir, 0o755);
  await writeFile(path.join(dir, "config.yaml"), text);
  return dir;
}

/** Issue 18 item 11 (a): a sub-account id listed twice is a config error, not a unique-key violation. */
describe("a sub-account id listed twice", () => {
  it.for([
    {
      what: "by one account",
      accounts: [
        "  - name: acme",
        "    base_url: http://127.0.0.1:1",
        "    api_key_env: ACME_KEY",
        "    sub_accounts: [7, 9, 7]",
      ],
      line: "telecom-etl: config: accounts.0.sub_accounts.2: sub-account 7 is listed twice (accounts.0.sub_accounts.0 and accounts.0.sub_accounts.2, account acme): it would be read twice; list it once",
    },
    {
      what: "by two accounts",
      accounts: [
        "  - name: acme",
        "    base_url: http://127.0.0.1:1",
        "    api_key_env: ACME_KEY",
        "    sub_accounts: [7]",
        "  - name: acme-eu",
        "    base_url: http://127.0.0.1:1",
        "    api_key_env: ACME_KEY",
        "    sub_accounts: [8, 7]",
      ],
      line: "telecom-etl: config: accounts.1.sub_accounts.1: sub-account 7 is listed twice (accounts.0.sub_accounts.0 and accounts.1.sub_accounts.1, accounts acme and acme-eu): it would be read twice; list it once",
    },
  ])("$what: exit 2, one line naming both entries, nothing started", async ({ accounts, line }) => {
    const dir = await configDir(["accounts:", ...accounts].join("\n"));
    const result = await runCli(["--config", "config.yaml", "run"], {
      cwd: dir,
      env: { ACME_KEY: "k-acme-123" },
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim()).toBe(line);
    expect(await postgresPidsUnder(dir)).toEqual([]);
  });
});
