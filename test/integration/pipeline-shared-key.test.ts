import { describe, expect, it } from "../helpers/fixtures.js";
import { capturingLogger, runAt, sandboxConfig } from "./pipeline-harness.js";

/** Two accounts whose keys come from different env vars but are the same key share one rate budget. */
it.override({ sandboxOptions: { seed: 3, start: "2026-08-01", days: 2, accounts: 1, callsPerDay: 20 } });

describe("rate budget per API key value", () => {
  it("one budget at the most conservative rate, a warning, and neither key nor digest in the logs", async ({
    rig,
  }) => {
    const { sandbox, db } = rig;
    const base = sandboxConfig(sandbox);
    const owner = base.accounts[0]!;
    const config = {
      ...base,
      accounts: [
        {
          ...owner,
          name: "acme",
          apiKeyEnv: "ACME_KEY",
          rate: { requestsPerSecond: 50, burst: 10, concurrency: 4 },
        },
        {
          ...owner,
          name: "acme-eu",
          apiKeyEnv: "ACME_EU_KEY",
          rate: { requestsPerSecond: 30, burst: 20, concurrency: 2 },
        },
      ],
    };
    const lines: string[] = [];
    const result = await runAt(
      db.warehouse,
      config,
      sandbox,
      { command: "run", streams: ["invoices"] },
      { log: capturingLogger(lines) },
    );
    expect(result.exitCode, JSON.stringify(result.streams)).toBe(0);
    expect(result.budgets).toHaveLength(1);
    expect(result.budgets[0]).toMatchObject({ accounts: ["acme", "acme-eu"], maxRate: 30 });
    expect(lines.filter((line) => line.includes("different rate settings"))).toHaveLength(1);
    expect(lines.join("\n")).not.toContain(owner.apiKey.reveal());
  });
});
