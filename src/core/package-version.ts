import { readFileSync } from "node:fs";
import path from "node:path";
import { findProjectFolder } from "./project-files.js";

/** The version in the installed program's package.json (`telecom-etl --version`). */
export function packageVersion(): string {
  const file = path.join(findProjectFolder("package.json"), "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}
