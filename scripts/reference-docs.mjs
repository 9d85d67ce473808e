#!/usr/bin/env node
/**
 * `make docs`: writes the generated blocks of docs/reference/ (every command's --help, every config
 * key, the exit codes, the etl tables' columns) from the code, between their markers; the prose
 * around them is by hand. test/unit/docs-generated.test.ts fails while a block differs.
 * Usage: node scripts/reference-docs.mjs   (after `npm run build`: it reads dist/)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generatedBlockIn, withGeneratedBlock } from "../dist/src/core/generated-block.js";
import { REFERENCE_BLOCKS, renderedBlock } from "../dist/src/cli/reference-blocks.js";

const root = fileURLToPath(new URL("..", import.meta.url));
for (const block of REFERENCE_BLOCKS) {
  const file = new URL(`../${block.file}`, import.meta.url);
  const before = readFileSync(file, "utf8");
  const expected = renderedBlock(block, root);
  if (generatedBlockIn(before, block.name, block.file) === expected) {
    console.log(`${block.file}: ${block.name} is up to date`);
  } else {
    writeFileSync(file, withGeneratedBlock(before, block.name, block.file, expected));
    console.log(`${block.file}: ${block.name} was written from the code`);
  }
}
