import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * Issue 18 item 9: a sub-account the master's `sub_accounts` fans out to, also configured as an
 * account of its own, loaded its CDRs twice (under both names). The run now refuses before
 * loading anything: exit 2, one line naming both config entries, never the key.
 */
it.override({
  sandboxOptions: { seed: 9, start: "2026-08-01", days: 2, accounts: 2, callsPerDay: 30 },
});

describe("a sub-account also configured as its own account", () => {
  it("is refused at start: exit 2, one line naming both entries, nothing loaded", async ({ rig }) => {
    const { sandbox, db } = rig;
    const [master, sub] = sandbox.world.accounts;
    expect(sub?.role).not.toBe("master");
    const dir = await mkdtemp(path.join(tmpdir(), "telecom-etl-twice-"));
    await chmod(dir, 0o755);
    await writeFile(
      path.join(dir, "config.yaml"),
      [
        "streams: [cdrs]",
        "accounts:",
        "  - name: acme",
        `    base_url: ${sandbox.url}`,
        "    api_key_env: ACME_KEY",
        `    sub_accounts: [${sub!.id}]`,
        "  - name: acme-client",
        `    base_url: ${sandbox.url}`,
        "    api_key_env: CLIENT_KEY",
      ].join("\n"),
    );
    const result = await runCli(["--config", "config.yaml", "run"], {
      cwd: dir,
      env: {
        ACME_KEY: master!.apiKey,
        CLIENT_KEY: sub!.apiKey,
        DATABASE_URL: db.url,
        TELECOM_ETL_START_DATE: "2026-08-01",
        TELECOM_ETL_NOW: "2026-08-03T03:00:00Z",
      },
    });
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr
      .trim()
      .split("\n")
      .filter((line) => !line.startsWith("{"));
    expect(lines).toEqual([
      `telecom-etl: config: accounts.1 (account acme-client, key from CLIENT_KEY) is sub-account ${sub!.id} listed in accounts.0.sub_accounts (account acme): ` +
        `the same platform account would be loaded twice, as acme-client and acme-sub-${sub!.id}; ` +
        `remove ${sub!.id} from acme's sub_accounts or remove account acme-client`,
    ]);
    expect(result.stderr).not.toContain(sub!.apiKey);
    const counts = await sql<{ cdrs: number; streams: number; slices: number }>`
      SELECT (SELECT count(*)::int FROM platform.cdrs) AS cdrs,
             (SELECT count(*)::int FROM etl.run_streams) AS streams,
             (SELECT count(*)::int FROM etl.run_slices) AS slices`.execute(db.warehouse.db);
    expect(counts.rows[0]).toEqual({ cdrs: 0, streams: 0, slices: 0 });
    const runs = await sql<{ status: string; exit_code: number }>`
      SELECT status, exit_code FROM etl.runs`.execute(db.warehouse.db);
    expect(runs.rows).toEqual([{ status: "failed", exit_code: 2 }]);
  });
});
