#!/usr/bin/env node
/**
 * `make docs`: writes docs/reference/warehouse-tables.md's table of streams (under "Landing tables") from the stream
 * registry, between its markers, so a new or changed stream shows there without editing it by
 * hand. test/unit/streams-readme-table.test.ts fails while that table differs.
 * Usage: node scripts/stream-table.mjs   (after `npm run build`: it reads dist/)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { streamTable, withStreamTable } from "../dist/src/streams/stream-table.js";

const PAGE = new URL("../docs/reference/warehouse-tables.md", import.meta.url);
const before = readFileSync(PAGE, "utf8");
const after = withStreamTable(before, streamTable());
if (after === before) {
  console.log("docs/reference/warehouse-tables.md: the stream table is up to date");
} else {
  writeFileSync(PAGE, after);
  console.log("docs/reference/warehouse-tables.md: the stream table was written from the registry");
}
