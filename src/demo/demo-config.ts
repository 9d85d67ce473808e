import type { AccountConfig, EtlConfig } from "../config.js";
import type { RunningSandbox } from "../sandbox/start-sandbox.js";
import { Secret } from "../secret.js";
import { STREAMS } from "../streams/registry.js";

/**
 * The configuration the demo runs with: every seeded sandbox account, its key held as a Secret,
 * reading every stream of the registry (its validation tokens tracked, the US number catalog
 * snapshotted once, by the master), and the start date at the sandbox's first day.
 */
export function demoConfig(base: EtlConfig, sandbox: RunningSandbox): EtlConfig {
  const accounts = sandbox.world.accounts.map(
    (account): AccountConfig => ({
      name: account.name,
      baseUrl: sandbox.url,
      apiKeyEnv: `SANDBOX_${account.name.toUpperCase().replace(/-/g, "_")}_KEY`,
      apiKey: new Secret(account.apiKey),
      rate: { requestsPerSecond: 200, burst: 50, concurrency: 4 },
      streams: Object.keys(STREAMS),
      sources: {
        subAccounts: [],
        brandIds: undefined,
        validationTokens: account.validations.map((v) => v.token),
        numberCatalog: { countries: account.role === "master" ? [1] : [], textEnabledOnly: false },
      },
    }),
  );
  return { ...base, accounts, startDate: sandbox.world.start };
}
