/**
 * Issue 36 item 5: the generated blocks of docs/reference/ are the code's. Each is rendered from the
 * code as `make docs` writes it and compared with the committed page; a stale one fails naming
 * `make docs`. The generators themselves are checked against the code they read, so a block
 * that is up to date is also complete.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { commandsOf } from "../../src/cli/commands-reference.js";
import { buildProgram } from "../../src/cli/main.js";
import { REFERENCE_BLOCKS, renderedBlock } from "../../src/cli/reference-blocks.js";
import { EXIT } from "../../src/core/exit-codes.js";
import { generatedBlockIn, withGeneratedBlock } from "../../src/core/generated-block.js";
import { inertRuntime } from "../helpers/inert-runtime.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const page = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
const block = (name: string) => REFERENCE_BLOCKS.find((b) => b.name === name)!;

describe("docs/reference's generated blocks", () => {
  it.each(REFERENCE_BLOCKS.map((b) => [`${b.file} ${b.name}`, b] as const))("%s is the code's", (_, b) => {
    const expected = renderedBlock(b, ROOT);
    expect(
      generatedBlockIn(page(b.file), b.name, b.file),
      `${b.file}: "${b.name}" is stale: run make docs`,
    ).toBe(expected);
  });

  it("tells a stale block, and make docs writes it back leaving the prose alone", () => {
    const b = block("exit-codes");
    const text = page(b.file);
    const stale = text.replace("| 130 |", "| 131 |");
    expect(generatedBlockIn(stale, b.name, b.file)).not.toBe(renderedBlock(b, ROOT));
    expect(withGeneratedBlock(stale, b.name, b.file, renderedBlock(b, ROOT))).toBe(text);
    expect(() => generatedBlockIn("# no block\n", b.name, b.file)).toThrow(/run make docs/);
  });

  it("lists every command's help, every exit code and every etl table", () => {
    const commands = renderedBlock(block("commands"), ROOT);
    for (const [words] of commandsOf(buildProgram(inertRuntime)))
      expect(commands, words).toContain(`## telecom-etl ${words}\n`);
    const codes = renderedBlock(block("exit-codes"), ROOT);
    for (const [name, code] of Object.entries(EXIT)) expect(codes).toContain(`| ${code} | \`${name}\` |`);
    const tables = renderedBlock(block("etl-columns"), ROOT);
    const db = page("src/warehouse/connection/etl-tables.generated.ts");
    for (const [, table] of db.matchAll(/"(etl\.\w+)":/g)) expect(tables).toContain(`#### \`${table}\``);
    expect(tables).toContain("| `bucket_id` | `string` | sha256 hex");
  });

  it("has one row per key of the config file, with the default the schema gives", () => {
    const keys = renderedBlock(block("config-keys"), ROOT);
    expect(keys).toContain("| `per_page` | integer | `100` |");
    expect(keys).toContain("| `accounts[].rate.burst` | integer | `20` |");
    expect(keys).toContain("| `stream_options.<key>.settle_hours` |");
    expect(keys).toMatch(/\| `start_date` \| string \| none \(optional\) \| `TELECOM_ETL_START_DATE` \|/);
  });

  it("lists in the hand-written exit-code table exactly the codes of EXIT", () => {
    const text = page("docs/reference/exit-codes.md").split("## In detail")[1]!;
    const rows = [...text.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(rows).toEqual(Object.values(EXIT));
  });
});
