import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { parse } from "yaml";
import type { Database } from "../../src/warehouse/database.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/**
 * Issue 9, access: `bi_reader` (migration 0009, password from the environment, grants from dbt)
 * reads every relation of the marts schema and nothing else, writes nothing, keeps its access
 * after `transform --full-refresh`, and the marts carry their dbt descriptions as comments.
 */
const PASSWORD = "bi reader's 'pass' word"; // a quote and spaces: the password is never spliced into SQL
const MARTS = "analytics_marts";
const HIDDEN_SCHEMAS = ["platform", "etl", "analytics_staging", "analytics_intermediate"] as const;
/** dbt is CPU-bound and the suite shares two cores: a test running nightly may take minutes under load. */
const DBT_TIMEOUT = { timeout: 300_000 };
const DBT_MARTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dbt/models/marts");

const it = fixtureTest
  /** The CLI environment of the file: the sandbox's one account, the file's database, bi_reader's password. */
  .extend(
    "env",
    { scope: "file" },
    ({ rig }): Record<string, string> => ({
      TELECOM_API_URL: rig.sandbox.url,
      TELECOM_API_KEY: rig.sandbox.world.accounts[0]!.apiKey,
      DATABASE_URL: rig.db.url,
      TELECOM_ETL_START_DATE: rig.sandbox.world.start,
      TELECOM_ETL_STREAMS: "cdrs,short_link_metrics,invoices",
      TELECOM_ETL_BI_READER_PASSWORD: PASSWORD,
    }),
  )
  /** One `nightly` for the whole file: load, build the marts, check freshness. */
  .extend("nightly", { scope: "file" }, async ({ env }): Promise<CliResult> => {
    return runCli(["nightly"], { env, timeoutMs: 240_000 });
  });
it.override({ sandboxOptions: { seed: 9, days: 2, accounts: 1, callsPerDay: 30, now: "real" } });

/** Runs one statement as bi_reader with its password; resolves to the SQLSTATE it failed with, or "ok". */
async function asBiReader(databaseUrl: string, text: string): Promise<string> {
  const url = new URL(databaseUrl);
  url.username = "bi_reader";
  url.password = encodeURIComponent(PASSWORD);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(text);
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end();
  }
}

/** Every table and view of `schema`, as the warehouse owner sees them (information_schema hides what a role cannot use). */
async function relationsOf(db: Kysely<Database>, schema: string): Promise<string[]> {
  const rows = await sql<{ name: string }>`
    SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
    WHERE table_schema = ${schema} ORDER BY table_name`.execute(db);
  return rows.rows.map((r) => r.name);
}

describe("bi_reader", () => {
  it(
    "nightly exits 0 and bi_reader selects every relation of the marts schema",
    DBT_TIMEOUT,
    async ({ rig, nightly }) => {
      expect(nightly.code, nightly.stderr.slice(-3000)).toBe(0);
      expect(nightly.stdout).toMatch(/dbt build: PASS=\d+ WARN=\d+ ERROR=0/);
      expect(nightly.stderr).not.toContain(PASSWORD);
      const marts = await relationsOf(rig.db.warehouse.db, MARTS);
      expect(marts.length).toBeGreaterThan(0);
      for (const relation of marts) {
        expect(await asBiReader(rig.db.url, `SELECT * FROM ${relation} LIMIT 1`), relation).toBe("ok");
      }
    },
  );

  it(
    "cannot insert, update, delete or create in the marts schema, nor create a schema",
    DBT_TIMEOUT,
    async ({ rig, nightly }) => {
      expect(nightly.code).toBe(0);
      const [mart] = await relationsOf(rig.db.warehouse.db, MARTS);
      const column = await sql<{ name: string }>`SELECT quote_ident(attname) AS name FROM pg_attribute
      WHERE attrelid = to_regclass(${mart}) AND attnum > 0 AND NOT attisdropped ORDER BY attnum LIMIT 1`.execute(
        rig.db.warehouse.db,
      );
      const first = column.rows[0]?.name;
      const attempts = [
        `INSERT INTO ${mart} SELECT * FROM ${mart} LIMIT 1`,
        `UPDATE ${mart} SET ${first} = ${first}`,
        `DELETE FROM ${mart}`,
        `CREATE TABLE ${MARTS}.bi_scratch (x int)`,
        `CREATE VIEW ${MARTS}.bi_scratch AS SELECT 1 AS x`,
        "CREATE SCHEMA bi_scratch",
      ];
      for (const statement of attempts) {
        // 42501: insufficient_privilege.
        expect(await asBiReader(rig.db.url, statement), statement).toBe("42501");
      }
    },
  );

  it("cannot read platform, etl, staging or intermediate", DBT_TIMEOUT, async ({ rig, nightly }) => {
    expect(nightly.code).toBe(0);
    for (const schema of HIDDEN_SCHEMAS) {
      const relations = await relationsOf(rig.db.warehouse.db, schema);
      expect(relations.length, schema).toBeGreaterThan(0);
      for (const relation of relations) {
        expect(await asBiReader(rig.db.url, `SELECT 1 FROM ${relation} LIMIT 1`), relation).toBe("42501");
      }
    }
  });

  it(
    "every mart and column description of the dbt YAML is a Postgres comment",
    DBT_TIMEOUT,
    async ({ rig, nightly }) => {
      expect(nightly.code).toBe(0);
      const db = rig.db.warehouse.db;
      // Every YAML file under the marts folder, its subject folders (calls/, campaigns/, ...) included.
      const models = readdirSync(DBT_MARTS, { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".yml"))
        .flatMap((file) => (parse(readFileSync(path.join(DBT_MARTS, file), "utf8")) as DbtYaml).models ?? []);
      const described = models.filter((m) => m.description);
      expect(described.length).toBeGreaterThan(0);
      for (const model of described) {
        const relation = `${MARTS}.${model.name}`;
        const comment = await sql<{ text: string | null }>`
        SELECT obj_description(to_regclass(${relation}), 'pg_class') AS text`.execute(db);
        expect(comment.rows[0]?.text?.trim(), relation).toBe(model.description?.trim());
        for (const column of (model.columns ?? []).filter((c) => c.description)) {
          const columnComment = await sql<{ text: string | null }>`
          SELECT col_description(to_regclass(${relation}), a.attnum) AS text
          FROM pg_attribute a WHERE a.attrelid = to_regclass(${relation}) AND a.attname = ${column.name}`.execute(
            db,
          );
          expect(columnComment.rows[0]?.text?.trim(), `${relation}.${column.name}`).toBe(
            column.description?.trim(),
          );
        }
      }
    },
  );

  it(
    "keeps its access after transform --full-refresh (grants come from dbt, not by hand)",
    DBT_TIMEOUT,
    async ({ rig, env, nightly }) => {
      expect(nightly.code).toBe(0);
      const db = rig.db.warehouse.db;
      const oids = async () =>
        (
          await sql<{
            oid: number;
          }>`SELECT c.oid::int AS oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = ${MARTS} AND c.relkind IN ('r', 'v', 'm') ORDER BY c.relname`.execute(db)
        ).rows.map((r) => r.oid);
      const before = await oids();
      const rebuilt = await runCli(["transform", "--full-refresh"], { env, timeoutMs: 180_000 });
      expect(rebuilt.code, rebuilt.stderr.slice(-3000)).toBe(0);
      // Every mart is a new relation now: the grants on it were made by the rebuild.
      expect((await oids()).some((oid) => before.includes(oid))).toBe(false);
      const marts = await relationsOf(db, MARTS);
      expect(marts.length).toBe(before.length);
      for (const relation of marts) {
        expect(await asBiReader(rig.db.url, `SELECT * FROM ${relation} LIMIT 1`), relation).toBe("ok");
      }
    },
  );
});

interface DbtYaml {
  readonly models?: readonly {
    readonly name: string;
    readonly description?: string;
    readonly columns?: readonly { readonly name: string; readonly description?: string }[];
  }[];
}
