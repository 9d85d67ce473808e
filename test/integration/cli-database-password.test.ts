import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * Issue 18 item 12: a password on the command line shows in `ps` to every user of the machine, so
 * `--database-url` with one is refused (exit 2, one line); the password goes in DATABASE_URL or in
 * the file `database_password_file` names.
 */
describe("the warehouse password", () => {
  it("--database-url with a password: exit 2, one line naming the alternatives, never the password", async () => {
    const result = await runCli(["status", "--database-url", "postgres://etl:hunter2@127.0.0.1:1/wh"]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^telecom-etl: --database-url carries a password.*DATABASE_URL.*database_password_file/,
    );
    expect(result.stderr + result.stdout).not.toContain("hunter2");
  });

  it("reads the password from database_password_file for a URL without one", async ({ database }) => {
    const withPassword = new URL(database.url);
    const password = decodeURIComponent(withPassword.password);
    expect(password.length).toBeGreaterThan(0);
    withPassword.password = "";
    const bare = withPassword.toString();
    const dir = await mkdtemp(path.join(tmpdir(), "telecom-etl-pw-"));
    const config = async (file: string) => {
      const configPath = path.join(dir, `${path.basename(file)}.yaml`);
      await writeFile(configPath, `database_password_file: ${file}\n`);
      return configPath;
    };
    const good = path.join(dir, "good");
    await writeFile(good, `${password}\n`, { mode: 0o600 });
    const bad = path.join(dir, "bad");
    await writeFile(bad, "not-the-password\n", { mode: 0o600 });

    const ok = await runCli(["status", "--database-url", bare, "--config", await config(good)]);
    expect(ok.code, ok.stderr).toBe(0);
    // The same URL without the file cannot log in: the file is what gave the password.
    const refused = await runCli(["status", "--database-url", bare, "--config", await config(bad)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot connect to the warehouse/);
    expect(refused.stderr).not.toContain("not-the-password");
    // DATABASE_URL (the environment, not the command line) may carry its password, as before.
    const fromEnv = await runCli(["status"], { env: { DATABASE_URL: database.url } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const both = await runCli(["status", "--config", await config(good)], {
      env: { DATABASE_URL: database.url },
    });
    expect(both.code).toBe(2);
    expect(both.stderr.trim()).toMatch(
      /^telecom-etl: DATABASE_URL carries a password and database_password_file .* keep one/,
    );
  });
});
