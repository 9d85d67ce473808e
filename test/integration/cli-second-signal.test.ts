import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { collect, runCli, spawnCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { startPostgresFaultProxy } from "./postgres-fault-proxy.js";

/**
 * Issue 18 item 10: two SIGTERMs did not stop a run hung on a stalled warehouse connection, and its
 * locks blocked every later run. The first signal lets loads in flight finish (one is stuck here);
 * the second ends the process at once with 130; the server notices the closed session, rolls its
 * transaction back and frees its locks, so the next run takes them and loads.
 */
it.override({ sandboxOptions: { seed: 1811, days: 2, accounts: 1, callsPerDay: 20, now: "real" } });

/** Resolves once `condition` holds, polling every 100 ms; rejects after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a second SIGTERM", () => {
  it("ends a run stuck in a stalled load at once (130); its locks are free for the next run", async ({
    rig,
  }) => {
    const proxy = await startPostgresFaultProxy(rig.db.url, (text) => /^\s*COPY /i.test(text));
    const dir = await mkdtemp(path.join(tmpdir(), "telecom-etl-signal-"));
    const configFile = path.join(dir, "telecom-etl.yaml");
    // A statement timeout far beyond the test: only the signals can end this run.
    await writeFile(configFile, "load_statement_timeout_ms: 600000\n");
    const env = {
      TELECOM_API_URL: rig.sandbox.url,
      TELECOM_API_KEY: rig.sandbox.world.accounts[0]!.apiKey,
      TELECOM_ETL_START_DATE: rig.sandbox.world.start,
      TELECOM_ETL_STREAMS: "cdrs",
    };
    try {
      const child = spawnCli(["run", "--config", configFile], { env: { ...env, DATABASE_URL: proxy.url } });
      const result = collect(child, 120_000);
      await until(() => proxy.stalled > 0, 60_000, "the load to stall");
      child.kill("SIGTERM");
      // The first signal waits for the load in flight, which never ends.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(child.exitCode).toBeNull();
      const second = performance.now();
      child.kill("SIGTERM");
      const ended = await result;
      const seconds = (performance.now() - second) / 1000;
      expect(ended.code).toBe(130);
      expect(seconds).toBeLessThan(5);
      expect(ended.stderr).toContain("SIGTERM received again; exiting now (130)");

      // The killed run's locks went with its session: a run that waits for them gets them and loads.
      const next = await runCli(["run", "--config", configFile, "--lock-timeout", "20"], {
        env: { ...env, DATABASE_URL: rig.db.url },
      });
      expect(next.code, next.stderr.slice(-2000)).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
