import { runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

const NOTE = "invoices is a full-refresh stream: loaded all pages; --from/--to do not apply";

/** The CLI's environment: the file's sandbox, its key and database, and a fixed "now". */
const it = fixtureTest.extend(
  "env",
  { scope: "file" },
  ({ sandbox, database }): Record<string, string> => ({
    TELECOM_API_URL: sandbox.url,
    TELECOM_API_KEY: sandbox.world.accounts[0]!.apiKey,
    DATABASE_URL: database.url,
    TELECOM_ETL_NOW: "2026-08-04T03:00:00Z",
  }),
);
it.override({ sandboxOptions: { seed: 8, start: "2026-08-01", days: 3, accounts: 1, callsPerDay: 20 } });

/** `backfill` of a full-refresh stream loads everything and says that the range did not apply. */
describe("backfill of a full-refresh stream (CLI)", () => {
  it("says in one line that --from/--to do not apply to invoices, and only for invoices", async ({ env }) => {
    const range = ["--from", "2026-08-01", "--to", "2026-08-01"];
    const invoices = await runCli(["backfill", "--streams", "invoices,cdrs", ...range], { env });
    expect(invoices.code, invoices.stderr.slice(-1000)).toBe(0);
    expect(invoices.stdout.split("\n").filter((line) => line.trim() === NOTE)).toHaveLength(1);

    const json = await runCli(["--json", "backfill", "--streams", "invoices", ...range], { env });
    expect((JSON.parse(json.stdout) as { notes: string[] }).notes).toEqual([NOTE]);

    const cdrs = await runCli(["backfill", "--streams", "cdrs", ...range], { env });
    expect(cdrs.code).toBe(0);
    expect(cdrs.stdout).not.toContain("full-refresh");
  });
});
