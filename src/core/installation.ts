import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { findProjectFolder } from "./project-files.js";

/**
 * How this program is installed: a `clone` of the repository (built in place; `make setup`
 * installs dbt into its `.venv`), or a `package` (`npm install -g` of the packed tarball, the
 * image), whose folder may not be writable and whose dbt environment the program creates itself.
 */
export type InstallationKind = "clone" | "package";

/** The installed program's folder: the one holding its `package.json` (a clone's root, or the package's). */
export function programFolder(): string {
  return findProjectFolder("package.json");
}

/** A clone carries the Makefile that sets it up; the packed tarball does not ship one. */
export function installationKind(root: string = programFolder()): InstallationKind {
  return existsSync(path.join(root, "Makefile")) ? "clone" : "package";
}

/**
 * Where the program keeps what it writes for itself (dbt's work folders, a package's dbt
 * environment): $TELECOM_ETL_HOME when set; in a clone its `.telecom-etl/`; for a package the
 * user's state folder (`$XDG_STATE_HOME/telecom-etl`, default `~/.local/state/telecom-etl`).
 */
export function stateFolder(root: string = programFolder(), env: NodeJS.ProcessEnv = process.env): string {
  if (env.TELECOM_ETL_HOME) return path.resolve(env.TELECOM_ETL_HOME);
  if (installationKind(root) === "clone") return path.join(root, ".telecom-etl");
  const base = env.XDG_STATE_HOME || path.join(homedir(), ".local", "state");
  return path.join(base, "telecom-etl");
}

/** How the user sets up what is missing: `make setup` in a clone, `telecom-etl setup` for a package. */
export function setupCommand(root: string = programFolder()): string {
  return installationKind(root) === "clone" ? "make setup" : "telecom-etl setup";
}
