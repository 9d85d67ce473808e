#!/usr/bin/env node
/**
 * `npm run scaffold:stream -- <name>`: adds stream `<name>` (snake_case) to the scaffolded streams
 * and writes every file derived from its declaration (src/streams/stream-scaffold.ts says which):
 * the registration modules (catalogue, registry, sandbox lists), then, after a build, the landing
 * table's migration (once: migrations are checksummed, an existing one is never rewritten), the dbt
 * source and staging model, and the stream table of docs/reference/warehouse-tables.md (`make docs`). Run it again after changing
 * the declaration: the generated files follow (a new migration aside, which you write as a change).
 * `npm run scaffold:stream` without a name writes the registration modules of the streams already
 * scaffolded. Needs, by convention, packages/platform/src/<kebab>.ts and packages/sandbox/src/<kebab>-list.ts
 * exporting <camel>Resource and <camel>List; the stream derives from the catalogue entry unless
 * src/streams/<kebab>.ts exports its own <camel>Stream.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";

const root = new URL("../", import.meta.url);
const at = (path) => new URL(path, root);
const name = process.argv[2];

/** The streams scaffolded so far, as the generated catalogue module lists them. */
function scaffolded() {
  const text = readFileSync(at("packages/platform/src/scaffolded-resources.ts"), "utf8");
  const list = /SCAFFOLDED_RESOURCE_NAMES = \[(.*)\] as const/.exec(text)?.[1] ?? "";
  return [...list.matchAll(/"([a-z0-9_]+)"/g)].map((m) => m[1]);
}

/** Writes `text` to `path` when it differs, saying so. */
function write(path, text) {
  const before = existsSync(at(path)) ? readFileSync(at(path), "utf8") : null;
  if (before === text) return;
  writeFileSync(at(path), text);
  console.log(`${before === null ? "wrote" : "rewrote"} ${path}`);
}

/** The project's migrations, and the number the next one takes. */
function nextMigration() {
  const files = readdirSync(at("sql/migrations")).filter((f) => f.endsWith(".sql"));
  const last = Math.max(...files.map((f) => Number(f.slice(0, 4))));
  return { files, number: String(last + 1).padStart(4, "0") };
}

const build = () => execFileSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: "inherit" });

/** Phase 2, in a process of its own (a fresh module graph: this build's registry holds the new stream). */
async function generate() {
  const scaffold = await import("../dist/src/streams/stream-scaffold.js");
  const { STREAMS } = await import("../dist/src/streams/registry.js");
  const stream = STREAMS[name];
  if (stream === undefined) throw new Error(`${name}: not in the registry after the build`);
  const { files, number } = nextMigration();
  const own = files.find((f) => f.endsWith(`_create_${name}_table.sql`));
  if (own === undefined) write(`sql/migrations/${number}_create_${name}_table.sql`, scaffold.migrationSql(stream));
  else if (readFileSync(at(`sql/migrations/${own}`), "utf8") !== scaffold.migrationSql(stream))
    console.warn(`sql/migrations/${own} differs from the declaration: write a migration for the change`);
  const model = scaffold.stagingModelName(stream);
  write(`dbt/models/staging/platform/${model}.sql`, scaffold.stagingModelSql(stream));
  write(`dbt/models/staging/platform/_platform_${name}__generated.yml`, scaffold.stagingYml(stream));
  execFileSync("node", ["scripts/stream-table.mjs"], { cwd: root, stdio: "inherit" });
}

if (process.env.SCAFFOLD_PHASE === "generate") {
  await generate();
} else {
  try {
    build();
  } catch {
    // The registration modules may name a file that is gone or not there yet: tsc still emits the
    // generators (no noEmitOnError), and the modules are written again below, then built again.
    console.warn("scaffold:stream: the build before the registration modules failed; continuing");
  }
  const scaffold = await import("../dist/src/streams/stream-scaffold.js");
  if (name !== undefined && !scaffold.SCAFFOLD_NAME.test(name)) {
    console.error(`scaffold:stream: ${JSON.stringify(name)} is not a snake_case stream name`);
    process.exit(2);
  }
  const names = scaffolded();
  if (name !== undefined && !names.includes(name)) names.push(name);
  const declared = names.filter((n) => existsSync(at(`src/streams/${scaffold.kebabOf(n)}.ts`)));
  for (const [path, text] of Object.entries(scaffold.registrationFiles(names, declared))) write(path, text);
  if (name !== undefined) {
    build();
    execFileSync(process.execPath, [new URL(import.meta.url).pathname, name], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, SCAFFOLD_PHASE: "generate" },
    });
  }
}
