import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { parse } from "yaml";
import { PUBLICATION_VIEW } from "../../src/transform/publish-marts.js";
import type { Database } from "../../src/warehouse/connection/database.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { dropDatabaseAndRole, type TestDatabase } from "../helpers/test-database.js";

/**
 * Issue 9, access: the warehouse's BI role (`<database>_bi_reader`, password from the environment,
 * grants from dbt) reads every relation of the marts schema and nothing else, writes nothing, keeps
 * its access after `transform --full-refresh`, and the marts carry their dbt descriptions as
 * comments. Issue 18 item 14: a second warehouse on the same server gets a role of its own; neither
 * role can connect to the other's database nor read its marts, and setting one's password leaves
 * the other's alone.
 */
const PASSWORD = "bi reader's 'pass' word"; // a quote and spaces: the password is never spliced into SQL
const MARTS = "analytics_marts";
const HIDDEN_SCHEMAS = [
  "platform",
  "etl",
  "analytics_staging",
  "analytics_intermediate",
  "analytics_snapshots",
] as const;
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

/** The BI role the loader gives the warehouse in database `name` (test databases are named `t_<hex>`). */
function biRoleOf(name: string): string {
  return `${name}_bi_reader`;
}

/**
 * Connects to `databaseUrl`'s database as `role` (default: that database's own BI role) with
 * `password` and runs one statement; resolves to "ok" or the SQLSTATE of the connection or statement.
 */
async function asBiReader(
  databaseUrl: string,
  text: string,
  { role, password = PASSWORD }: { role?: string; password?: string } = {},
): Promise<string> {
  const url = new URL(databaseUrl);
  url.username = role ?? biRoleOf(url.pathname.slice(1));
  url.password = encodeURIComponent(password);
  const client = new pg.Client({ connectionString: url.toString() });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query(text);
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Every table and view of `schema`, as the warehouse owner sees them (information_schema hides what a role cannot use). */
async function relationsOf(db: Kysely<Database>, schema: string): Promise<string[]> {
  const rows = await sql<{ name: string }>`
    SELECT format('%I.%I', n.nspname, c.relname) AS name
    FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
    WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
    ORDER BY c.relname`.execute(db);
  return rows.rows.map((r) => r.name);
}

describe("the warehouse's BI role", () => {
  it(
    "nightly exits 0 and the BI role selects every relation of the marts schema",
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

  it("cannot read platform, etl, staging, intermediate, snapshots", DBT_TIMEOUT, async ({ rig, nightly }) => {
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
    "every column of every published fct_, dim_, rpt_ and audit_ mart is described (a Postgres comment)",
    DBT_TIMEOUT,
    async ({ rig, nightly }) => {
      expect(nightly.code).toBe(0);
      const { rows } = await sql<{ name: string; described: boolean }>`
        SELECT format('%I.%I', c.relname, a.attname) AS name,
               coalesce(btrim(col_description(c.oid, a.attnum)), '') <> '' AS described
        FROM pg_class AS c
        JOIN pg_namespace AS n ON n.oid = c.relnamespace
        JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE n.nspname = ${MARTS} AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
          AND c.relname ~ '^(fct|dim|rpt|audit)_'
        ORDER BY 1`.execute(rig.db.warehouse.db);
      // Every mart of the YAML is published (the nightly builds them all), so every one was checked.
      const published = new Set(rows.map((r) => r.name.split(".")[0]));
      expect([...published].sort()).toEqual(
        martModels()
          .map((m) => m.name)
          .sort(),
      );
      expect(rows.filter((r) => !r.described).map((r) => r.name)).toEqual([]);
    },
  );

  it(
    "every fct_ and dim_ mart's grain is its primary key, also after an incremental transform, and a duplicate is refused",
    DBT_TIMEOUT,
    async ({ rig, env, nightly }) => {
      expect(nightly.code).toBe(0);
      const db = rig.db.warehouse.db;
      // Incremental: fct_calls, fct_campaign_messages and fct_link_clicks start as copies of the
      // published tables (macro copy_published_incremental_marts), their key copied with them.
      const rebuilt = await runCli(["transform"], { env, timeoutMs: 180_000 });
      expect(rebuilt.code, rebuilt.stderr.slice(-3000)).toBe(0);
      const grains = new Map(
        martModels()
          .filter((m) => /^(fct|dim)_/.test(m.name))
          .map((m) => [m.name, grainOf(m)]),
      );
      const keys = await sql<{
        table: string;
        key: string[] | null;
        key_indexes: number;
        partition_by: string[];
      }>`
        SELECT c.relname AS table,
               coalesce((SELECT array_agg(a.attname::text ORDER BY k.ord)
                FROM pg_partitioned_table AS pt
                CROSS JOIN LATERAL unnest(pt.partattrs::int2[]) WITH ORDINALITY AS k (attnum, ord)
                JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = k.attnum
                WHERE pt.partrelid = c.oid), '{}') AS partition_by,
               (SELECT array_agg(a.attname::text ORDER BY k.ord)
                FROM pg_constraint AS p
                CROSS JOIN LATERAL unnest(p.conkey) WITH ORDINALITY AS k (attnum, ord)
                JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = k.attnum
                WHERE p.conrelid = c.oid AND p.contype = 'p') AS key,
               (SELECT count(*)::int FROM pg_index AS x
                JOIN pg_constraint AS p ON p.conrelid = c.oid AND p.contype = 'p'
                WHERE x.indrelid = c.oid AND x.indisunique
                  AND (SELECT array_agg(v ORDER BY v) FROM unnest(x.indkey::int2[]) AS v)
                    = (SELECT array_agg(v ORDER BY v) FROM unnest(p.conkey) AS v)) AS key_indexes
        FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = ${MARTS} AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND c.relname ~ '^(fct|dim)_'
        ORDER BY 1`.execute(db);
      expect(keys.rows.map((r) => r.table)).toEqual([...grains.keys()].sort());
      for (const row of keys.rows) {
        // The key is the grain the YAML states (and a partitioned fact's partition column, which
        // its key must hold), built once (no second unique index on it).
        const grain = grains.get(row.table) ?? [];
        expect(row.key, row.table).toEqual([...grain, ...row.partition_by.filter((c) => !grain.includes(c))]);
        expect(row.key_indexes, row.table).toBe(1);
      }
      const refused: string[] = [];
      for (const { table } of keys.rows) {
        const relation = sql.table(`${MARTS}.${table}`);
        const [present] = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${relation}`.execute(db))
          .rows;
        if ((present?.n ?? 0) === 0) continue;
        // 23505: unique_violation. The owner may write; the key refuses the copy of a row.
        const code = await sql`INSERT INTO ${relation} SELECT * FROM ${relation} LIMIT 1`.execute(db).then(
          () => "ok",
          (error: { code?: string }) => error.code ?? String(error),
        );
        expect(code, table).toBe("23505");
        refused.push(table);
      }
      expect(refused).toEqual(expect.arrayContaining(["dim_accounts", "fct_calls", "fct_link_clicks"]));
      expect(keys.rows.find((r) => r.table === "fct_calls")?.partition_by).toEqual(["call_date"]);
      expect(keys.rows.find((r) => r.table === "fct_link_clicks")?.partition_by).toEqual(["click_date"]);
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
          WHERE n.nspname = ${MARTS} AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
            AND c.relname <> ${PUBLICATION_VIEW} ORDER BY c.relname`.execute(db)
        ).rows.map((r) => r.oid);
      const before = await oids();
      const rebuilt = await runCli(["transform", "--full-refresh"], { env, timeoutMs: 180_000 });
      expect(rebuilt.code, rebuilt.stderr.slice(-3000)).toBe(0);
      // Every mart is a new relation now: the grants on it were made by the rebuild (in the build
      // schema, and moved with it when published). The publication view is the loader's, not dbt's.
      expect((await oids()).some((oid) => before.includes(oid))).toBe(false);
      const marts = await relationsOf(db, MARTS);
      expect(marts.length).toBe(before.length + 1);
      for (const relation of marts) {
        expect(await asBiReader(rig.db.url, `SELECT * FROM ${relation} LIMIT 1`), relation).toBe("ok");
      }
    },
  );

  it(
    "a second warehouse on the same server gets its own role: no CONNECT across, no marts across, passwords apart",
    DBT_TIMEOUT,
    async ({ rig, nightly, createDatabase }) => {
      expect(nightly.code).toBe(0);
      const first = rig.db;
      const second = await createDatabase();
      const secondPassword = "the second warehouse's password";
      const migrated = await runCli(["migrate"], {
        env: { DATABASE_URL: second.url, TELECOM_ETL_BI_READER_PASSWORD: secondPassword },
      });
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stderr).not.toContain(secondPassword);
      const firstRole = biRoleOf(first.name);
      const secondRole = biRoleOf(second.name);
      const roles = await sql<{ rolname: string; rolcanlogin: boolean }>`
        SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname IN (${firstRole}, ${secondRole}) ORDER BY rolname`.execute(
        first.warehouse.db,
      );
      expect(roles.rows).toEqual(
        [firstRole, secondRole].sort().map((rolname) => ({ rolname, rolcanlogin: true })),
      );
      // A mart of the second warehouse, granted as dbt grants: to its own role only.
      await sql`CREATE SCHEMA IF NOT EXISTS analytics_marts`.execute(second.warehouse.db);
      await sql`CREATE TABLE analytics_marts.rpt_probe AS SELECT 1 AS x`.execute(second.warehouse.db);
      await sql`GRANT USAGE ON SCHEMA analytics_marts TO ${sql.id(secondRole)}`.execute(second.warehouse.db);
      await sql`GRANT SELECT ON analytics_marts.rpt_probe TO ${sql.id(secondRole)}`.execute(
        second.warehouse.db,
      );

      // Each role reads its own warehouse's marts with its own password: the second's password did not change the first's.
      const [mart] = await relationsOf(first.warehouse.db, MARTS);
      expect(await asBiReader(first.url, `SELECT * FROM ${mart} LIMIT 1`)).toBe("ok");
      expect(
        await asBiReader(second.url, "SELECT * FROM analytics_marts.rpt_probe", { password: secondPassword }),
      ).toBe("ok");
      expect(await asBiReader(first.url, "SELECT 1", { password: secondPassword })).toBe("28P01");
      expect(await asBiReader(second.url, "SELECT 1", { password: PASSWORD })).toBe("28P01");
      // Neither may connect to the other's database (42501: permission denied for database).
      expect(
        await asBiReader(second.url, "SELECT * FROM analytics_marts.rpt_probe", { role: firstRole }),
      ).toBe("42501");
      expect(
        await asBiReader(first.url, `SELECT * FROM ${mart} LIMIT 1`, {
          role: secondRole,
          password: secondPassword,
        }),
      ).toBe("42501");
      // And were CONNECT granted by hand, nothing of the first warehouse's marts is the second's role's (nor the old shared role's).
      for (const relation of await relationsOf(first.warehouse.db, MARTS)) {
        const granted = await sql<{ other: boolean; legacy: boolean }>`
          SELECT has_table_privilege(${secondRole}, ${relation}, 'SELECT') AS other,
                 EXISTS (SELECT FROM pg_roles WHERE rolname = 'bi_reader')
                   AND has_table_privilege('bi_reader', ${relation}, 'SELECT') AS legacy`.execute(
          first.warehouse.db,
        );
        expect(granted.rows[0], relation).toEqual({ other: false, legacy: false });
      }
    },
  );
});

interface DbtTest {
  readonly column_rules?: { readonly arguments?: { readonly unique_combination?: readonly string[] } };
}

interface DbtModel {
  readonly name: string;
  readonly description?: string;
  readonly columns?: readonly {
    readonly name: string;
    readonly description?: string;
    readonly data_tests?: readonly (string | DbtTest)[];
  }[];
  readonly data_tests?: readonly (string | DbtTest)[];
}

interface DbtYaml {
  readonly models?: readonly DbtModel[];
}

/** The published marts' models of the dbt YAML (fct_, dim_, rpt_, audit_; not the semantic layer's spine). */
function martModels(): DbtModel[] {
  return readdirSync(DBT_MARTS, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".yml"))
    .flatMap((file) => (parse(readFileSync(path.join(DBT_MARTS, file), "utf8")) as DbtYaml).models ?? [])
    .filter((m) => /^(fct|dim|rpt|audit)_/.test(m.name));
}

/** A model's grain as its YAML states it: column_rules' unique_combination, else its one `unique` column. */
function grainOf(model: DbtModel): string[] | undefined {
  for (const test of model.data_tests ?? []) {
    const combination =
      typeof test === "string" ? undefined : test.column_rules?.arguments?.unique_combination;
    if (combination) return [...combination];
  }
  const unique = (model.columns ?? []).filter((c) => (c.data_tests ?? []).includes("unique"));
  return unique.length === 1 ? [unique[0]!.name] : undefined;
}

/**
 * Issue 32 item 14: `bi_reader_role` naming a role that exists and is not the loader's (the
 * warehouse owner, another team's role) is refused with exit 2 and one line, and its password is
 * left as it was; a role the loader marked (migration 0009's `bi_reader` comment) still works.
 */
describe("bi_reader_role naming an existing role", () => {
  const BI_PASSWORD = "the BI password";
  const OWN_PASSWORD = "the role's own password";

  /** Runs `migrate` against `url` with `bi_reader_role: role` and the BI password set. */
  async function migrateWithRole(url: string, role: string): Promise<CliResult> {
    const dir = await mkdtemp(path.join(tmpdir(), "telecom-etl-bi-role-"));
    const config = path.join(dir, "telecom-etl.yaml");
    await writeFile(config, `bi_reader_role: ${role}\n`);
    return runCli(["migrate", "--config", config], {
      env: { DATABASE_URL: url, TELECOM_ETL_BI_READER_PASSWORD: BI_PASSWORD },
    });
  }

  /**
   * Creates role `name` (server-wide) with `attributes` and its own password; after the test (its
   * database dropped with it, what the role owned or was granted there gone too) the role is dropped.
   */
  async function createRole(
    database: TestDatabase,
    name: string,
    attributes: string,
    onTestFinished: (fn: () => Promise<void>) => void,
  ): Promise<void> {
    await sql`CREATE ROLE ${sql.id(name)} ${sql.raw(attributes)} PASSWORD ${sql.lit(OWN_PASSWORD)}`.execute(
      database.warehouse.db,
    );
    onTestFinished(() => dropDatabaseAndRole(database.name, name));
  }

  function expectRefused(result: CliResult, role: string): void {
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.split("\n").filter((line) => line.startsWith("telecom-etl:"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`bi_reader_role names ${role}`);
    expect(lines[0]).toMatch(/set bi_reader_role to a name no role has yet/);
    expect(result.stderr + result.stdout).not.toContain(BI_PASSWORD);
  }

  fixtureTest(
    "the warehouse owner: exit 2, the owner still logs in with its password, the BI password does not",
    async ({ createDatabase, onTestFinished }) => {
      const admin = await createDatabase({ migrate: false });
      const owner = `${admin.name}_owner`;
      // A superuser, as warehouse owners often are (a CREATEROLE owner of Postgres 16 may not alter itself).
      await createRole(admin, owner, "LOGIN SUPERUSER", onTestFinished);
      await sql`ALTER DATABASE ${sql.id(admin.name)} OWNER TO ${sql.id(owner)}`.execute(admin.warehouse.db);
      await sql`ALTER SCHEMA public OWNER TO ${sql.id(owner)}`.execute(admin.warehouse.db);
      const asOwner = new URL(admin.url);
      asOwner.username = owner;
      asOwner.password = encodeURIComponent(OWN_PASSWORD);

      const refused = await migrateWithRole(asOwner.toString(), owner);
      expectRefused(refused, owner);
      expect(refused.stderr).toContain("the warehouse user itself");
      expect(await asBiReader(admin.url, "SELECT 1", { role: owner, password: OWN_PASSWORD })).toBe("ok");
      expect(await asBiReader(admin.url, "SELECT 1", { role: owner, password: BI_PASSWORD })).toBe("28P01");
    },
  );

  fixtureTest(
    "another team's role: exit 2, its password unchanged, nothing granted to it",
    async ({ createDatabase, onTestFinished }) => {
      const database = await createDatabase();
      const analyst = `${database.name}_analyst`;
      await createRole(database, analyst, "LOGIN", onTestFinished);
      // A role of another team that may connect here (the loader took CONNECT from PUBLIC).
      await sql`GRANT CONNECT ON DATABASE ${sql.id(database.name)} TO ${sql.id(analyst)}`.execute(
        database.warehouse.db,
      );

      const refused = await migrateWithRole(database.url, analyst);
      expectRefused(refused, analyst);
      expect(refused.stderr).toContain(`COMMENT ON ROLE ${analyst} IS 'telecom-etl: BI reader'`);
      expect(await asBiReader(database.url, "SELECT 1", { role: analyst, password: OWN_PASSWORD })).toBe(
        "ok",
      );
      expect(await asBiReader(database.url, "SELECT 1", { role: analyst, password: BI_PASSWORD })).toBe(
        "28P01",
      );
    },
  );

  fixtureTest(
    "a role carrying migration 0009's mark (an installation from before per-warehouse roles) keeps working",
    async ({ createDatabase, onTestFinished }) => {
      const database = await createDatabase();
      const db = database.warehouse.db;
      // The comment migration 0009 puts on the server-wide bi_reader it creates (every test database is migrated).
      const legacy = await sql<{ comment: string | null }>`
        SELECT shobj_description(oid, 'pg_authid') AS comment FROM pg_roles WHERE rolname = 'bi_reader'`.execute(
        db,
      );
      const mark = legacy.rows[0]?.comment;
      expect(mark).toMatch(/^telecom-etl: reads the dbt marts/);
      const role = `${database.name}_legacy`;
      await createRole(database, role, "NOLOGIN", onTestFinished);
      await sql`COMMENT ON ROLE ${sql.id(role)} IS ${sql.lit(mark!)}`.execute(db);

      const migrated = await migrateWithRole(database.url, role);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(await asBiReader(database.url, "SELECT 1", { role, password: BI_PASSWORD })).toBe("ok");
    },
  );
});
