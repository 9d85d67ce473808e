#!/usr/bin/env node
/**
 * `make lint`'s function-length check: no function of the loader (src/) or of the platform's contract
 * (packages/platform/src; not the sandbox, packages/sandbox, the platform's simulator, not the
 * product) is longer than 80 lines, counted from its first
 * line to its last, nested functions each on their own. Exit 1 with one line per function over.
 * Usage: node scripts/check-function-length.mjs [FILE|DIR ...]   (default: src and packages/platform/src)
 * Why by hand: Biome (the linter) has no function-length rule, and a second linter for one rule is
 * heavier than reading the files with the TypeScript compiler the build already has.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const LIMIT = 80;
const DEFAULT_ROOTS = ["src", path.join("packages", "platform", "src")];
const EXCLUDED = [path.join("packages", "sandbox")];

/** Every .ts file under `target` (a file or a folder), the excluded folders left out. */
function filesOf(target) {
  if (EXCLUDED.some((excluded) => path.normalize(target) === excluded)) return [];
  if (!statSync(target).isDirectory()) return target.endsWith(".ts") ? [target] : [];
  return readdirSync(target)
    .sort()
    .flatMap((name) => filesOf(path.join(target, name)));
}

function isFunction(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function nameOf(node) {
  if (node.name !== undefined) return node.name.getText();
  if (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)) return node.parent.name.getText();
  return "(anonymous function)";
}

/** The functions of `file` longer than LIMIT lines, as `file:line name: N lines`. */
function longFunctionsOf(file) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (isFunction(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > LIMIT) found.push(`${file}:${first + 1} ${nameOf(node)}: ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const targets = process.argv.slice(2);
const files = (targets.length > 0 ? targets : DEFAULT_ROOTS).flatMap(filesOf);
const long = files.flatMap(longFunctionsOf);
if (long.length > 0) {
  for (const line of long) console.error(`${line} (limit ${LIMIT}): split it into named steps`);
  console.error(`function length: ${long.length} function(s) over ${LIMIT} lines`);
  process.exit(1);
}
console.log(`function length: ${files.length} files, no function over ${LIMIT} lines`);
