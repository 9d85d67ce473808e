import { existsSync } from "node:fs";
import path from "node:path";
import { findProjectFolder } from "../core/project-files.js";

/** The clone's launcher (`./telecom-etl` at its root), which picks a Node ≥ 22.12 for the CLI. */
export const LAUNCHER = "telecom-etl";

/**
 * How a user runs this CLI again, for the commands it suggests: in a clone, its launcher
 * (`./telecom-etl` from the clone's root, else its absolute path), which works whatever the
 * `node` on PATH is; elsewhere (the Docker image, an installed package) `telecom-etl` on PATH.
 */
export function ownCommand(cwd: string = process.cwd()): string {
  const root = findProjectFolder("package.json");
  const launcher = path.join(root, LAUNCHER);
  if (!existsSync(launcher)) return "telecom-etl";
  return path.resolve(cwd) === root ? `./${LAUNCHER}` : launcher;
}
