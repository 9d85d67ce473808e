import { stat } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "../core/errors.js";

/** Where `report` and `nightly --report` write the page unless told otherwise (the working directory). */
export const DEFAULT_REPORT_PATH = "night.html";

/**
 * The absolute path of the page, or a one-line UsageError (exit 2) when it cannot be written there:
 * its folder must exist and the path must not be a folder. Checked before any work starts, so a
 * typo fails at once instead of after the night.
 */
export async function checkReportPath(file: string): Promise<string> {
  const resolved = path.resolve(file);
  const folder = path.dirname(resolved);
  const folderStat = await stat(folder).catch(() => undefined);
  if (folderStat === undefined || !folderStat.isDirectory())
    throw new UsageError(`report: folder ${folder} does not exist; create it or give another path`);
  const fileStat = await stat(resolved).catch(() => undefined);
  if (fileStat?.isDirectory())
    throw new UsageError(
      `report: ${resolved} is a folder; give a file path such as ${path.join(resolved, DEFAULT_REPORT_PATH)}`,
    );
  return resolved;
}
