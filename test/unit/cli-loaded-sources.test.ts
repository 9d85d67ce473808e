import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadedSources } from "../../src/cli/transform-steps.js";
import { loadConfig } from "../../src/config/config.js";

/** The platform staging folder: its `_platform__sources.yml` and each scaffolded stream's generated yml. */
const STAGING = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../dbt/models/staging/platform",
);
const env = { TELECOM_API_URL: "http://127.0.0.1:4010", TELECOM_API_KEY: "k-123456" };

/** `nightly` checks the freshness of the tables of the streams it loads, and only those. */
describe("loadedSources", () => {
  it("the enabled streams' tables, child tables included", async () => {
    const streams = "cdrs,sip_trunks,numbers,transcriptions";
    const config = await loadConfig({}, { ...env, TELECOM_ETL_STREAMS: streams });
    expect(loadedSources(config, {})).toEqual([
      "source:platform.cdrs",
      "source:platform.numbers",
      "source:platform.sip_trunks",
      "source:platform.transcription_turns",
      "source:platform.transcriptions",
    ]);
  });

  it("narrowed by --streams", async () => {
    const config = await loadConfig({}, env);
    expect(loadedSources(config, { streams: ["short_link_metrics"] })).toEqual([
      "source:platform.short_link_metrics",
    ]);
  });

  it("every stream's table is a dbt source (a selector dbt cannot match would check nothing)", async () => {
    const declared = new Set(
      readdirSync(STAGING)
        .filter((file) => file.endsWith(".yml"))
        .flatMap(
          (file) =>
            (
              parse(readFileSync(path.join(STAGING, file), "utf8")) as {
                sources?: { name: string; tables: { name: string }[] }[];
              }
            ).sources ?? [],
        )
        .flatMap((source) => source.tables.map((table) => `source:${source.name}.${table.name}`)),
    );
    const all = loadedSources(await loadConfig({}, env), {});
    expect(all.length).toBeGreaterThan(10);
    expect(all.filter((selector) => !declared.has(selector))).toEqual([]);
  });
});
