import { readFileSync } from "node:fs";
import path from "node:path";
import { generatedBlock } from "../core/generated-block.js";
import { commandsReference } from "./commands-reference.js";
import { configurationReference } from "./configuration-reference.js";
import { etlTablesReference } from "./etl-tables-reference.js";
import { exitCodesReference } from "./exit-codes-reference.js";
import { inertRuntime } from "./inert-runtime.js";
import { buildProgram } from "./main.js";

/** A block of docs/reference/ that `make docs` writes from the code. */
export interface ReferenceBlock {
  /** The page, relative to the repository's root. */
  readonly file: string;
  /** The block's name in its marker lines. */
  readonly name: string;
  /** What it is generated from, as its marker line says. */
  readonly source: string;
  /** The block's Markdown, from the code (and the source files under `root`). */
  body(root: string): string;
}

const read = (root: string, file: string) => readFileSync(path.join(root, file), "utf8");

/** Every generated block of the reference, one per concept the code defines. */
export const REFERENCE_BLOCKS: readonly ReferenceBlock[] = [
  {
    file: "docs/reference/commands.md",
    name: "commands",
    source: "the CLI's commander program (src/cli/main.ts)",
    body: () => commandsReference(buildProgram(inertRuntime)),
  },
  {
    file: "docs/reference/configuration.md",
    name: "config-keys",
    source: "the config file's zod schema (src/config/config-file-schema.ts)",
    body: () => configurationReference(),
  },
  {
    file: "docs/reference/exit-codes.md",
    name: "exit-codes",
    source: "src/core/exit-codes.ts",
    body: (root) => exitCodesReference(read(root, "src/core/exit-codes.ts")),
  },
  {
    file: "docs/reference/warehouse-tables.md",
    name: "etl-columns",
    source: "src/warehouse/connection/etl-tables.generated.ts (npm run db:types)",
    body: (root) => etlTablesReference(read(root, "src/warehouse/connection/etl-tables.generated.ts")),
  },
];

/** The block as `make docs` writes it, markers included. */
export function renderedBlock(block: ReferenceBlock, root: string): string {
  return generatedBlock(block.name, block.source, block.body(root));
}
