/**
 * Everything `telecom-etl check` looks at, in the order it prints: the environment, each selected
 * account (in parallel, printed in the config's order), the warehouse (reachable, migrations, BI
 * role), dbt (installed, profile). Read-only: nothing is migrated, created or loaded.
 */
import type { EtlConfig } from "../config/config.js";
import type { EnvFileUse } from "../config/env-file.js";
import { describeError, UsageError } from "../core/errors.js";
import type { KnownSecrets } from "../core/known-secrets.js";
import type { Clock } from "../core/ports.js";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";
import { checkAccount } from "./account-checks.js";
import type { CheckItem } from "./check-item.js";
import { checkDbt } from "./dbt-checks.js";
import { checkBiRole, checkMigrations } from "./warehouse-checks.js";

/** What the checks need from the command. */
export interface CheckDeps {
  readonly config: EtlConfig;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly secrets: KnownSecrets;
  readonly signal?: AbortSignal;
  /** The instant a run started now takes as "now"; a UsageError (a bad TELECOM_ETL_NOW) is an item. */
  readonly runStartInstant: () => number;
  /** Opens the warehouse the config names (or the embedded one); a UsageError is an item. */
  readonly openWarehouse: () => Promise<Warehouse>;
  /** Called with each group of items as soon as it is known, so a slow part does not hide the rest. */
  readonly report: (items: readonly CheckItem[]) => void;
}

/** Which variables the `.env` beside the config gave, and which of its lines it did not take (names only). */
function envFileItem(use: EnvFileUse): CheckItem {
  const gave = use.loaded.length ? use.loaded.join(", ") : "nothing";
  const ignored = use.ignored.length
    ? `; not taken: ${use.ignored.join(", ")} (the config does not refer to them, or the environment sets them)`
    : "";
  return { subject: "environment", item: ".env", status: "ok", detail: `${use.path} gave ${gave}${ignored}` };
}

/** Runs every check of the selected accounts (all when absent) and streams; returns every item. */
export async function runChecks(
  deps: CheckDeps,
  selection: { readonly accounts?: readonly string[]; readonly streams?: readonly string[] } = {},
): Promise<CheckItem[]> {
  const all: CheckItem[] = [];
  const report = (items: readonly CheckItem[]) => {
    all.push(...items);
    deps.report(items);
  };
  let runStartedAt = deps.clock.now();
  try {
    runStartedAt = deps.runStartInstant();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    report([{ subject: "environment", item: "TELECOM_ETL_NOW", status: "fail", detail: error.message }]);
  }
  if (deps.config.envFile !== undefined) report([envFileItem(deps.config.envFile)]);
  const accounts = deps.config.accounts.filter(
    (a) => selection.accounts === undefined || selection.accounts.includes(a.name),
  );
  if (accounts.length === 0) {
    report([
      {
        subject: "config",
        item: "accounts",
        status: "fail",
        detail: "no accounts; set TELECOM_API_URL and TELECOM_API_KEY, or list accounts in telecom-etl.yaml",
      },
    ]);
  }
  const accountDeps = { ...deps, runStartedAt };
  const checked = accounts.map((account) => checkAccount(accountDeps, account, selection.streams));
  for (const items of checked) report(await items);

  let warehouse: Warehouse;
  try {
    warehouse = await deps.openWarehouse();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    report([{ subject: "warehouse", item: "reachable", status: "fail", detail: describeError(error) }]);
    return all;
  }
  try {
    report([{ subject: "warehouse", item: "reachable", status: "ok", detail: warehouse.where }]);
    report([await checkMigrations(warehouse)]);
    report([await checkBiRole(warehouse, deps.config.biReaderRole, deps.env)]);
    report(await checkDbt(warehouse.url, deps.config.biReaderRole));
  } finally {
    await warehouse.close();
  }
  return all;
}
