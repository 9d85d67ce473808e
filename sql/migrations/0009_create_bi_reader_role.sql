-- The role BI tools read the marts with. It can log in only once TELECOM_ETL_BI_READER_PASSWORD is
-- set (every command that migrates then sets its password and LOGIN); until then it is NOLOGIN.
-- Roles belong to the whole server, not to one database: another database of the same server (or
-- a DBA) may have created it already, and two migrations may race to create it.
-- What it may read is granted by dbt (`grants` on the marts, USAGE on the marts schema), so a
-- rebuild never drops it; nothing here grants it any table.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'bi_reader') THEN
    CREATE ROLE bi_reader NOLOGIN;
    -- Only on a role this migration created: commenting on a DBA's role needs rights we may lack.
    COMMENT ON ROLE bi_reader IS
      'telecom-etl: reads the dbt marts (SELECT granted by dbt), nothing else; password from TELECOM_ETL_BI_READER_PASSWORD';
  END IF;
EXCEPTION
  WHEN duplicate_object OR unique_violation THEN
    NULL; -- created meanwhile by a concurrent migration of another database
END
$$;
