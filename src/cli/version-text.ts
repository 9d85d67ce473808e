import { packageVersion } from "../core/package-version.js";
import { pinnedDbtVersion } from "../transform/run-dbt.js";
import { schemaVersion } from "../warehouse/connection/migrate.js";

/**
 * What `telecom-etl --version` prints: the program's version (semantic versioning, see
 * CHANGELOG.md), the warehouse schema it migrates to (its last migration's number) and the
 * dbt-core its lock installs, e.g. `telecom-etl 0.2.0 (warehouse schema 0029, dbt-core 1.11.16)`.
 */
export function versionText(): string {
  return `telecom-etl ${packageVersion()} (warehouse schema ${schemaVersion()}, dbt-core ${pinnedDbtVersion()})`;
}
