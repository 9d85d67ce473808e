import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import type { AccountConfig, EtlConfig } from "../config/config.js";
import { Secret } from "../core/secret.js";
import { STREAMS } from "../streams/registry.js";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";
import { trackIds } from "../warehouse/state/lookup-candidates.js";

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
      rate: { requestsPerSecond: 500, burst: 100, concurrency: 8 },
      streams: Object.keys(STREAMS),
      sources: {
        subAccounts: [],
        brandIds: undefined,
        validationTokens: account.validations.map((v) => v.token),
        numberCatalog: { countries: account.role === "master" ? [1] : [], textEnabledOnly: false },
      },
    }),
  );
  // Every call of the demo's world may have its transcription fetched (not only the last week's), so
  // the invoices reconcile against complete usage.
  const worldDays = Math.ceil(
    (sandbox.runtime.clock.now() - Date.parse(`${sandbox.world.start}T00:00:00Z`)) / 86_400_000,
  );
  return {
    ...base,
    accounts,
    startDate: sandbox.world.start,
    transcriptionMaxAgeDays: Math.max(base.transcriptionMaxAgeDays, Math.min(90, worldDays + 1)),
  };
}

/**
 * Tracks the demo world's validation tokens as submitted when the sandbox made them, as a user who
 * runs `telecom-etl track validation <token> --submitted-at <time>` would: the marts then date each
 * validation's charge in the month it was made, and the invoices reconcile.
 */
export async function trackDemoValidations(warehouse: Warehouse, sandbox: RunningSandbox): Promise<void> {
  const now = sandbox.runtime.clock.now();
  for (const account of sandbox.world.accounts) {
    for (const validation of account.validations) {
      await trackIds(warehouse.db, {
        kind: "validation",
        account: account.name,
        ids: [validation.token],
        source: "config",
        at: new Date(Math.min(validation.createdAtMs, now)),
      });
    }
  }
}
