import type { AccountConfig, EtlConfig } from "../config.js";
import type { RunningSandbox } from "../sandbox/start-sandbox.js";
import { Secret } from "../secret.js";

/**
 * The configuration the demo runs with: every seeded sandbox account, its key held as a Secret,
 * streams from the base config, and the start date at the sandbox's first day.
 */
export function demoConfig(base: EtlConfig, sandbox: RunningSandbox): EtlConfig {
  const accounts = sandbox.world.accounts.map(
    (account): AccountConfig => ({
      name: account.name,
      baseUrl: sandbox.url,
      apiKeyEnv: `SANDBOX_${account.name.toUpperCase().replace(/-/g, "_")}_KEY`,
      apiKey: new Secret(account.apiKey),
      rate: { requestsPerSecond: 200, burst: 50, concurrency: 4 },
      streams: ["cdrs", "short_link_metrics", "invoices"],
    }),
  );
  return { ...base, accounts, startDate: sandbox.world.start };
}
