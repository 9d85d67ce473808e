import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "./errors.js";

/**
 * The folder of the installed program that holds `relative` (e.g. `sql/migrations`), found by
 * climbing from this file, so it works from `src/` (tests) and from `dist/src/` (the built CLI).
 */
export function findProjectFolder(relative: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    if (existsSync(path.join(dir, relative))) return dir;
    dir = path.dirname(dir);
  }
  throw new UsageError(`cannot find ${relative} next to the installed program`);
}
