/**
 * A setting is written once, in the config file's zod schema: these tests walk the schema and fail
 * when a setting does not reach the code's EtlConfig, `config show`, the environment it names, or
 * the table of settings in docs/reference/configuration.md.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  configFileSchema,
  configFromFile,
  loadConfig,
  redactedConfig,
  SHAPED_SETTINGS,
} from "../../src/config/config.js";
import { codeName, settingMeta, unwrapped } from "../../src/config/config-derive.js";

/** Every setting's path: `a.b` for an object's key, `a[]` for an array of objects, `a.<*>` for a record's entries. */
function settingPaths(schema: z.ZodType, prefix = ""): string[] {
  const inner = unwrapped(schema);
  if (inner instanceof z.ZodObject) {
    return Object.entries(inner.shape).flatMap(([key, field]) => [
      `${prefix}${key}`,
      ...settingPaths(field, `${prefix}${key}.`),
    ]);
  }
  if (inner instanceof z.ZodArray && unwrapped(inner.element as z.ZodType) instanceof z.ZodObject)
    return settingPaths(inner.element as z.ZodType, `${prefix.slice(0, -1)}[].`);
  if (inner instanceof z.ZodRecord) {
    const entry = `${prefix}<*>`;
    return [entry, ...settingPaths(inner.def.valueType as z.ZodType, `${entry}.`)];
  }
  return [];
}

/** The paths of settings with nothing below them (the ones a user sets). */
function leafPaths(): string[] {
  const all = settingPaths(configFileSchema);
  return all.filter((p) => !all.some((other) => other.startsWith(`${p}.`) || other.startsWith(`${p}[]`)));
}

/** True when `value` has `path` (every array element and record entry too, named as the code names keys when `rename`). */
function hasPath(value: unknown, segments: readonly string[], rename: (key: string) => string): boolean {
  const [head, ...rest] = segments;
  if (head === undefined) return true;
  if (typeof value !== "object" || value === null) return false;
  const [key, many] = head.endsWith("[]") ? [head.slice(0, -2), true] : [head, false];
  const entries =
    key === "<*>"
      ? Object.values(value)
      : rename(key) in value
        ? [(value as Record<string, unknown>)[rename(key)]]
        : undefined;
  if (entries === undefined) return false;
  const items = many ? entries.flatMap((entry) => (Array.isArray(entry) ? entry : [undefined])) : entries;
  return items.every((item) => hasPath(item, rest, rename));
}

const isShaped = (leaf: string) =>
  (SHAPED_SETTINGS as readonly string[]).includes(leaf.split(/[.[]/)[0] ?? "");

describe("the config schema is the one place a setting is written", () => {
  it("finds the settings it walks (a walker that finds none cannot fail)", () => {
    const leaves = leafPaths();
    expect(leaves).toContain("max_outside_window_share");
    expect(leaves).toContain("distributed.no_worker_timeout");
    expect(leaves).toContain("stream_options.<*>.max_outside_window_share");
    expect(leaves).toContain("accounts[].rate.burst");
  });

  it("brings every setting but the hand-shaped ones into EtlConfig under its code name", () => {
    const file = configFileSchema.parse({ stream_options: { cdrs: {} } });
    const config = configFromFile(file, { source: undefined, requireAccounts: false }, {});
    const missing = leafPaths().filter(
      (leaf) => !isShaped(leaf) && !hasPath(config, leaf.split("."), codeName),
    );
    expect(missing).toEqual([]);
  });

  it("shows every setting in `config show` (streams resolved per account)", async () => {
    const config = await loadConfig(
      { requireAccounts: false },
      { TELECOM_API_URL: "http://127.0.0.1:1", TELECOM_API_KEY: "k" },
    );
    const shown = redactedConfig({ ...config, streamOptions: { cdrs: {} } });
    // Not shown as the file names them today, and changing that would change `config show`'s
    // output: the top-level streams (each account's resolved list is shown), an account's rate
    // floor, and `text_enabled_only`, which it prints under the code's name `textEnabledOnly`.
    const notShown = [
      "streams",
      "accounts[].rate.min_requests_per_second",
      "accounts[].number_catalog.text_enabled_only",
    ];
    const missing = leafPaths().filter(
      (leaf) => !notShown.includes(leaf) && !hasPath(shown, leaf.split("."), (key) => key),
    );
    expect(missing).toEqual([]);
  });

  it("lets the environment variable a setting names set it, and docs/reference/configuration.md names each one", async () => {
    const readme = readFileSync(new URL("../../docs/reference/configuration.md", import.meta.url), "utf8");
    const withEnv = Object.entries(configFileSchema.shape).filter(([, field]) => settingMeta.get(field)?.env);
    expect(withEnv.length).toBeGreaterThan(0);
    for (const [key, field] of withEnv) {
      const name = settingMeta.get(field)?.env ?? "";
      const inner = unwrapped(field);
      const [text, expected] =
        inner instanceof z.ZodNumber
          ? ["7", 7]
          : inner instanceof z.ZodArray
            ? ["cdrs, messages", ["cdrs", "messages"]]
            : ["2026-01-02", "2026-01-02"];
      const config = await loadConfig({ requireAccounts: false }, { [name]: text });
      expect(config.carried?.[key as keyof typeof config.carried], name).toEqual(expected);
      expect(readme.includes(`\`${name}\``), `docs/reference/configuration.md names ${name}`).toBe(true);
    }
  });

  it("matches docs/reference/configuration.md's table of settings: every setting in it (or under a row), no row for a setting that is gone", () => {
    const readme = readFileSync(new URL("../../docs/reference/configuration.md", import.meta.url), "utf8");
    const table = readme.slice(readme.indexOf("| key | default | meaning |"));
    const lines = table.slice(0, table.indexOf("\n\n")).split("\n").slice(2);
    const rows = lines.map((line) => /^\| `([^`]+)` \|/.exec(line)?.[1]?.replace(/<[^>]+>/g, "<*>"));
    expect(rows.length).toBeGreaterThan(20);
    const paths = settingPaths(configFileSchema);
    expect(rows.filter((row) => row === undefined || !paths.includes(row))).toEqual([]);
    // A leaf is documented by its own row, or by an ancestor's; under a record's row
    // (`stream_options.<stream>`), that row must name it.
    const documented = (leaf: string) =>
      rows.some(
        (row, index) =>
          row !== undefined &&
          (leaf === row ||
            (leaf.startsWith(`${row}.`) &&
              (!row.endsWith("<*>") || (lines[index] ?? "").includes(`\`${leaf.split(".").at(-1)}\``)))),
      );
    expect(leafPaths().filter((leaf) => !documented(leaf))).toEqual([]);
  });
});
