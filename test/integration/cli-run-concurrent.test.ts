import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { collect, runCli, spawnCli, stderrLine } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { duplicateKeys, expectedRows, loadedRows } from "./pipeline-harness.js";

/** Issue 4, test 7: two runs on the same streams at once: one exits 4 naming the holder; tables stay right. */
/** Where and with what environment the CLI runs: a config file naming the rig's sandbox, its key, its database. */
const it = fixtureTest.extend("options", { scope: "file" }, async ({ rig }) => {
  const { sandbox, db } = rig;
  const cwd = await mkdtemp(path.join(tmpdir(), "telecom-etl-lock-"));
  await chmod(cwd, 0o755);
  const account = sandbox.world.accounts[0]!;
  await writeFile(
    path.join(cwd, "telecom-etl.yaml"),
    `accounts:\n  - name: ${account.name}\n    base_url: ${sandbox.url}\n    api_key_env: LOCK_TEST_KEY\nstart_date: "2026-08-01"\nstreams: [cdrs, short_link_metrics]\n`,
  );
  const env: Record<string, string> = {
    LOCK_TEST_KEY: account.apiKey,
    DATABASE_URL: db.url,
    TELECOM_ETL_NOW: "2026-08-07T00:00:00Z",
  };
  return { env, cwd };
});
it.override({
  sandboxOptions: { seed: 9, start: "2026-08-01", days: 6, accounts: 1, callsPerDay: 600, latencyMs: 150 },
});

describe("two concurrent runs (CLI)", () => {
  it("the second run exits 4 with the holder's pid and host; --lock-timeout waits instead", async ({
    rig,
    options,
  }) => {
    const { sandbox, db } = rig;
    const first = spawnCli(["run"], options);
    const firstDone = collect(first, 120_000);
    await stderrLine(first, /"msg":"run started"/);
    const second = await runCli(["run", "--streams", "cdrs"], options);
    expect(second.code).toBe(4);
    expect(second.stderr).toMatch(
      new RegExp(`already running \\(pid ${first.pid} on host [^,]+, run \\d+\\)`),
    );
    expect(
      second.stderr
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("telecom-etl:")),
    ).toHaveLength(1);
    const firstResult = await firstDone;
    expect(firstResult.code, firstResult.stderr.slice(-1000)).toBe(0);

    // A run that may wait gets the locks once the holder is done.
    const third = spawnCli(["run"], options);
    const thirdDone = collect(third, 120_000);
    await stderrLine(third, /"msg":"run started"/);
    const patient = await runCli(["run", "--lock-timeout", "60"], options);
    expect(patient.code, patient.stderr.slice(-1000)).toBe(0);
    expect((await thirdDone).code).toBe(0);

    // Issue 4, test 8: the key is in no line the CLI wrote.
    const key = sandbox.world.accounts[0]!.apiKey;
    for (const output of [second, firstResult, patient])
      expect(output.stdout + output.stderr).not.toContain(key);

    const account = sandbox.world.accounts[0]!.name;
    for (const stream of ["cdrs", "short_link_metrics"]) {
      expect(await loadedRows(db.warehouse, stream, account), stream).toEqual(
        await expectedRows(sandbox, stream, account, { from: "2026-08-01", to: "2026-08-07" }),
      );
    }
    expect(await duplicateKeys(db.warehouse, "cdrs")).toBe(0);
    const runs = await db.warehouse.db.selectFrom("etl.runs").select(["exit_code"]).orderBy("id").execute();
    expect(runs.map((r) => r.exit_code).sort()).toEqual([0, 0, 0, 4]);
  });
});
