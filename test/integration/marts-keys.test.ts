import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { parse } from "yaml";
import { silentLogger } from "../../src/core/log.js";
import {
  biReaderRoleFor,
  databaseOfUrl,
  setUpBiReaderRole,
} from "../../src/warehouse/admin/bi-reader-role.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMarts, loadMartStreamsAt } from "./marts-build.js";

/**
 * Issue 35 item 2, keys BI tools follow: after a publication, the BI role sees through
 * `information_schema` exactly the foreign keys the marts' yml declares, and a primary key on every
 * fact, dimension and report (on grain_key, the grain's hash, where a grain column can be NULL); still after an incremental build continued from the kept marts, and after a
 * `--select` build that replaced a dimension alone; no foreign key ever points outside the
 * published schema, the kept marts carry none. The oracle is the yml files themselves (read here
 * with a YAML parser, not through the manifest the publication reads) and the project's model files.
 */
const PASSWORD = "bi reader's 'pass' word"; // as the other files: the role's name is the database's
const MARTS = "analytics_marts";
const DBT_DIR = path.resolve("dbt");

it.override({
  sandboxOptions: {
    seed: 35,
    start: "2026-08-01",
    days: 8,
    accounts: 2,
    callsPerDay: 80,
    now: "2026-08-05T12:00:00Z",
  },
});

/** The project's fct_/dim_/rpt_ models, from its model files. */
async function martModels(): Promise<string[]> {
  const files = await readdir(path.join(DBT_DIR, "models", "marts"), { recursive: true });
  return files
    .map((f) => path.basename(f, ".sql"))
    .filter((name, i) => files[i]!.endsWith(".sql") && /^(fct|dim|rpt)_/.test(name))
    .sort();
}

/** What the marts' yml files declare about keys. */
interface DeclaredKeys {
  /** Every foreign key, as `from(columns)->to(columns)`, sorted. */
  readonly foreignKeys: string[];
  /** The models whose yml says why they have no primary key yet (`meta.no_primary_key`). */
  readonly withoutPrimaryKey: string[];
}

async function declaredInYml(): Promise<DeclaredKeys> {
  const dir = path.join(DBT_DIR, "models", "marts");
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".yml"));
  const foreignKeys: string[] = [];
  const withoutPrimaryKey: string[] = [];
  for (const file of files) {
    const doc = parse(await readFile(path.join(dir, file), "utf8")) as {
      models?: {
        name: string;
        config?: { meta?: { foreign_keys?: Record<string, string[]>[]; no_primary_key?: string } };
      }[];
    };
    for (const model of doc?.models ?? []) {
      if (model.config?.meta?.no_primary_key) withoutPrimaryKey.push(model.name);
      for (const key of model.config?.meta?.foreign_keys ?? []) {
        const columns = key.columns!;
        foreignKeys.push(`${model.name}(${columns})->${key.to}(${key.to_columns ?? columns})`);
      }
    }
  }
  return { foreignKeys: foreignKeys.sort(), withoutPrimaryKey };
}

/** Runs `query` as the warehouse's BI role, logged in with its password. */
async function asBiReader<R extends pg.QueryResultRow>(databaseUrl: string, query: string): Promise<R[]> {
  const url = new URL(databaseUrl);
  url.username = biReaderRoleFor(databaseOfUrl(databaseUrl));
  url.password = encodeURIComponent(PASSWORD);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return (await client.query<R>(query)).rows;
  } finally {
    await client.end();
  }
}

/** What BI sees: the foreign keys of the published marts (`from(columns) -> to(columns)`) and the marts with a primary key. */
async function keysSeenByBi(databaseUrl: string): Promise<{ foreignKeys: string[]; primaryKeys: string[] }> {
  const foreignKeys = await asBiReader<{ key: string }>(
    databaseUrl,
    `SELECT k.table_name || '(' || string_agg(k.column_name, ',' ORDER BY k.ordinal_position) || ')->'
            || u.table_name || '(' || string_agg(u.column_name, ',' ORDER BY k.ordinal_position) || ')' AS key
     FROM information_schema.referential_constraints r
     JOIN information_schema.key_column_usage k
       ON k.constraint_schema = r.constraint_schema AND k.constraint_name = r.constraint_name
     JOIN information_schema.key_column_usage u
       ON u.constraint_schema = r.unique_constraint_schema AND u.constraint_name = r.unique_constraint_name
      AND u.ordinal_position = k.position_in_unique_constraint
     WHERE r.constraint_schema = '${MARTS}' AND k.table_schema = '${MARTS}'
     GROUP BY r.constraint_name, k.table_name, u.table_name ORDER BY 1`,
  );
  const primaryKeys = await asBiReader<{ table_name: string }>(
    databaseUrl,
    `SELECT table_name FROM information_schema.table_constraints
     WHERE table_schema = '${MARTS}' AND constraint_type = 'PRIMARY KEY' ORDER BY 1`,
  );
  return { foreignKeys: foreignKeys.map((r) => r.key), primaryKeys: primaryKeys.map((r) => r.table_name) };
}

/**
 * What is wrong with the keys BI sees: a declared foreign key missing (or one not declared), a
 * fact, dimension or report without a primary key (unless its yml says why). Empty when all is well.
 */
async function keyProblems(databaseUrl: string): Promise<string[]> {
  const seen = await keysSeenByBi(databaseUrl);
  const declared = await declaredInYml();
  const problems = [
    ...declared.foreignKeys
      .filter((k) => !seen.foreignKeys.includes(k))
      .map((k) => `missing foreign key ${k}`),
    ...seen.foreignKeys
      .filter((k) => !declared.foreignKeys.includes(k))
      .map((k) => `undeclared foreign key ${k}`),
  ];
  for (const mart of await martModels()) {
    const exempt = declared.withoutPrimaryKey.includes(mart);
    if (!exempt && !seen.primaryKeys.includes(mart)) problems.push(`no primary key on ${mart}`);
    if (exempt && seen.primaryKeys.includes(mart))
      problems.push(`${mart} has a primary key its yml says it has not`);
  }
  return problems;
}

/** Foreign keys (as owner) with an end outside the published schema, or on a kept or build table. */
async function strayForeignKeys(warehouse: Warehouse): Promise<string[]> {
  const { rows } = await sql<{ key: string }>`
    SELECT c.conname || ': ' || c.conrelid::regclass::text || ' -> ' || c.confrelid::regclass::text AS key
    FROM pg_catalog.pg_constraint c
    JOIN pg_catalog.pg_class f ON f.oid = c.conrelid JOIN pg_catalog.pg_namespace fn ON fn.oid = f.relnamespace
    JOIN pg_catalog.pg_class t ON t.oid = c.confrelid JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace
    WHERE c.contype = 'f' AND (fn.nspname LIKE 'analytics_marts%' OR tn.nspname LIKE 'analytics_marts%')
      AND (fn.nspname <> ${MARTS} OR tn.nspname <> ${MARTS})`.execute(warehouse.db);
  return rows.map((r) => r.key);
}

/**
 * What each foreign key costs the publication, for the decision record: created again validated
 * (a scan of the fact) and `NOT VALID`, timed in a transaction rolled back; the rows of the fact.
 */
async function keyCosts(warehouse: Warehouse): Promise<string[]> {
  const partitionedNotValid = (await serverMajor(warehouse)) >= 18;
  const { rows } = await sql<{ table: string; name: string; def: string; partitioned: boolean }>`
    SELECT f.relname AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS def, f.relkind = 'p' AS partitioned
    FROM pg_catalog.pg_constraint c
    JOIN pg_catalog.pg_class f ON f.oid = c.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = f.relnamespace
    WHERE c.contype = 'f' AND n.nspname = ${MARTS} AND c.conparentid = 0 ORDER BY 2`.execute(warehouse.db);
  const out: string[] = [];
  for (const key of rows) {
    const table = sql.id(MARTS, key.table);
    const definition = sql.raw(key.def.replace(/ NOT VALID$/, ""));
    const timed: string[] = [];
    for (const notValid of key.partitioned && !partitionedNotValid ? [false] : [false, true]) {
      await warehouse.db
        .transaction()
        .execute(async (trx) => {
          await sql`ALTER TABLE ${table} DROP CONSTRAINT ${sql.id(key.name)}`.execute(trx);
          const started = performance.now();
          await sql`ALTER TABLE ${table} ADD CONSTRAINT ${sql.id(key.name)} ${definition} ${sql.raw(notValid ? "NOT VALID" : "")}`.execute(
            trx,
          );
          timed.push(
            `${notValid ? "not valid" : "validated"} ${(performance.now() - started).toFixed(1)} ms`,
          );
          throw new Error("rolled back");
        })
        .catch((error: { code?: string; message: string }) => {
          if (error.code === "23503") timed.push("validated: has orphans");
          else if (error.message !== "rolled back") throw error;
        });
    }
    const counted = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${table}`.execute(warehouse.db);
    out.push(`${key.name} (${counted.rows[0]!.n} rows): ${timed.join(", ")}`);
  }
  return out;
}

/** The server's major version (`server_version_num` / 10000). */
async function serverMajor(warehouse: Warehouse): Promise<number> {
  const { rows } = await sql<{
    v: number;
  }>`SELECT current_setting('server_version_num')::int / 10000 AS v`.execute(warehouse.db);
  return rows[0]!.v;
}

/**
 * The published foreign keys Postgres validated (a scan of the referencing table in the
 * publication): none from Postgres 18 on, where every key is `NOT VALID`; before 18, only those
 * of the partitioned facts, which cannot have a `NOT VALID` key there.
 */
async function validatedKeysBeyondNeed(warehouse: Warehouse): Promise<string[]> {
  const major = await serverMajor(warehouse);
  const { rows } = await sql<{ key: string; partitioned: boolean }>`
    SELECT c.conname AS key, f.relkind = 'p' AS partitioned FROM pg_catalog.pg_constraint c
    JOIN pg_catalog.pg_class f ON f.oid = c.conrelid
    WHERE c.contype = 'f' AND c.connamespace = ${MARTS}::regnamespace AND c.conparentid = 0 AND c.convalidated
    ORDER BY 1`.execute(warehouse.db);
  return rows.filter((r) => major >= 18 || !r.partitioned).map((r) => r.key);
}

/** The OID of relation `name` (schema-qualified), or null when there is none. */
async function oidOf(warehouse: Warehouse, name: string): Promise<number | null> {
  const { rows } = await sql<{ oid: string | null }>`SELECT to_regclass(${name})::oid::int8 AS oid`.execute(
    warehouse.db,
  );
  return rows[0]?.oid == null ? null : Number(rows[0].oid);
}

describe("keys BI tools follow", () => {
  it("the BI role sees the declared foreign keys and a primary key on every fact, dimension and report, after each publication", {
    timeout: 900_000,
  }, async ({ sandbox, database }) => {
    const warehouse = database.warehouse;
    await setUpBiReaderRole(warehouse.db, {
      log: silentLogger,
      env: { TELECOM_ETL_BI_READER_PASSWORD: PASSWORD },
    });
    const declared = await declaredInYml();
    expect(declared.foreignKeys.length).toBeGreaterThanOrEqual(5);
    // No exception left: a report whose grain holds NULL is keyed on grain_key (its grain's hash).
    expect(declared.withoutPrimaryKey).toEqual([]);

    await loadMartStreamsAt(sandbox, warehouse, "2026-08-05T12:00:00Z");
    await buildMarts(warehouse, []);
    expect(await keyProblems(database.url)).toEqual([]);
    expect(await strayForeignKeys(warehouse)).toEqual([]);
    expect(await validatedKeysBeyondNeed(warehouse)).toEqual([]);
    console.info(
      `keys BI sees after the first publication: ${JSON.stringify(await keysSeenByBi(database.url))}; marts without a primary key: ${declared.withoutPrimaryKey}`,
    );
    console.info(`cost of each foreign key: ${(await keyCosts(warehouse)).join("; ")}`);
    // A grain holding NULL is keyed on grain_key: the NULL groups are there, each with its key.
    const keyed = await sql<{ table: string }>`
      SELECT c.conrelid::regclass::text AS table FROM pg_catalog.pg_constraint c
      JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
      WHERE c.contype = 'p' AND c.connamespace = ${MARTS}::regnamespace AND a.attname = 'grain_key'
      ORDER BY 1`.execute(warehouse.db);
    const received = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM analytics_marts.rpt_call_kpis_daily WHERE placing_trunk_name IS NULL`.execute(
      warehouse.db,
    );
    expect(keyed.rows.map((r) => r.table)).toContain(`${MARTS}.rpt_call_kpis_daily`);
    expect(received.rows[0]!.n).toBeGreaterThan(0);
    console.info(
      `keyed on grain_key: ${keyed.rows.map((r) => r.table).join(", ")}; rpt_call_kpis_daily rows with no placing trunk: ${received.rows[0]!.n}`,
    );

    // An incremental build continued from the published marts: fct_calls' replaced table is kept
    // (out of BI's schema, without a foreign key: strayForeignKeys), the new one gets its keys.
    const firstCalls = await oidOf(warehouse, `${MARTS}.fct_calls`);
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-07T06:00:00Z");
    await buildMarts(warehouse, []);
    expect(await oidOf(warehouse, "analytics_marts__previous.fct_calls")).toBe(firstCalls);
    expect(await keyProblems(database.url)).toEqual([]);
    expect(await strayForeignKeys(warehouse)).toEqual([]);
    // A third one continues from that kept table (moved back into the build, then published): the
    // same relation is BI's fct_calls again, with its foreign keys back.
    await loadMartStreamsAt(sandbox, warehouse, "2026-08-08T06:00:00Z");
    await buildMarts(warehouse, []);
    expect(await oidOf(warehouse, `${MARTS}.fct_calls`)).toBe(firstCalls);
    expect(await keyProblems(database.url)).toEqual([]);
    expect(await strayForeignKeys(warehouse)).toEqual([]);
    expect(await validatedKeysBeyondNeed(warehouse)).toEqual([]);

    // A --select build of one dimension: the facts left as they were point at the new dim_trunks.
    await buildMarts(warehouse, ["--select", "dim_trunks"]);
    expect(await keyProblems(database.url)).toEqual([]);
    expect(await strayForeignKeys(warehouse)).toEqual([]);

    // A declared foreign key the database lacks is found.
    await sql`ALTER TABLE analytics_marts.dim_numbers DROP CONSTRAINT dim_numbers_account_fkey`.execute(
      warehouse.db,
    );
    expect(await keyProblems(database.url)).toEqual([
      "missing foreign key dim_numbers(account)->dim_accounts(account)",
    ]);
  });
});
