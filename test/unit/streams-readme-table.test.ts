import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { STREAM_NAMES, STREAMS } from "../../src/streams/registry.js";
import {
  STREAM_TABLE_BEGIN,
  STREAM_TABLE_END,
  streamTable,
  streamTableIn,
  withStreamTable,
} from "../../src/streams/stream-table.js";

/** The page that holds the table of streams (it was the README's until issue 36 item 5). */
const README = readFileSync(new URL("../../docs/reference/warehouse-tables.md", import.meta.url), "utf8");

describe("the table of streams of docs/reference/warehouse-tables.md", () => {
  it("is the one the registry generates (make docs writes it)", () => {
    const expected = streamTable();
    expect(
      streamTableIn(README),
      `docs/reference/warehouse-tables.md's stream table ("Landing tables") differs from the registry's: run \`make docs\`, or put there:\n\n${expected}\n`,
    ).toBe(expected);
  });

  it("has one row per stream of the registry, in its order, with each landing and child table", () => {
    const rows = streamTable().split("\n").slice(2);
    expect(rows.map((row) => /^\| `([a-z_]+)` →/.exec(row)?.[1])).toEqual([...STREAM_NAMES]);
    for (const stream of Object.values(STREAMS)) {
      const row = rows.find((r) => r.startsWith(`| \`${stream.name}\` →`))!;
      for (const table of [stream.table, ...(stream.children ?? []).map((child) => child.table)])
        expect(row, stream.name).toContain(`\`${table.name}\``);
    }
  });

  it("differs from the README's as soon as a stream is added, and is written back in place", () => {
    const added = {
      ...STREAMS.invoices,
      name: "statements",
      table: { ...STREAMS.invoices.table, name: "platform.statements" },
    };
    const longer = streamTable([...Object.values(STREAMS), added]);
    expect(longer).not.toBe(streamTableIn(README));
    const rewritten = withStreamTable(README, longer);
    expect(streamTableIn(rewritten)).toBe(longer);
    expect(rewritten.split(STREAM_TABLE_BEGIN)[0]).toBe(README.split(STREAM_TABLE_BEGIN)[0]);
    expect(rewritten.split(STREAM_TABLE_END)[1]).toBe(README.split(STREAM_TABLE_END)[1]);
    expect(withStreamTable(README, streamTableIn(README))).toBe(README);
  });

  it("is followed by notes (by hand) on streams of the registry only", () => {
    const after = README.split(STREAM_TABLE_END)[1]!.split("\n\n**")[0]!;
    const noted = [...after.matchAll(/^- `([a-z_]+)`:/gm)].map((match) => match[1]);
    expect(noted.length).toBeGreaterThan(0);
    for (const name of noted) expect(STREAM_NAMES, `README note on ${name}`).toContain(name);
  });

  it("refuses a README without the markers", () => {
    expect(() => streamTableIn("# no table here\n")).toThrow(
      /has no generated block "stream-table".*run make docs/,
    );
  });
});
