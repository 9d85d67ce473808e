import type { DB } from "./etl-tables.generated.js";

export type { SliceStatus } from "./slice-status.js";

/**
 * The warehouse as Kysely sees it: the control tables of schema `etl` (docs/reference/warehouse-tables.md,
 * "Control schema `etl`"), one interface per table, generated from the migrated schema by `npm run db:types`
 * (etl-tables.generated.ts, shaped by .kysely-codegenrc.yaml; a test fails while it differs).
 * Landing tables of schema `platform` are typed from their streams' column declarations
 * (`PlatformTables`, src/streams/platform-tables.ts): `db.withTables<PlatformTables>()`.
 */
export type Database = DB;
