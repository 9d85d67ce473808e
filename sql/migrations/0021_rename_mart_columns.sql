-- One name per concept (README, "Glossary: one name per concept"): the trunk that placed a call
-- leg is `placing_trunk_name` in every mart (it was `sip_trunk`, the CDR's own name, next to
-- `trunk_name` for the trunk that carried the leg), and a loader window's day is `window_date`
-- (it was `day`), and a count of call legs says legs (`calls` / `answered_calls` /
-- `carried_in_calls` / `peak_concurrent_calls` counted legs in rpt_call_cost_daily and
-- rpt_call_volume_hourly, where rpt_call_kpis_daily's `answered_calls` counts root calls). dbt
-- builds the renamed columns, but an incremental mart continues from the published table (dbt
-- macro copy_published_incremental_marts) or the one the last publication kept (analytics_marts__previous): renamed here, those keep their rows and the next nightly build
-- re-builds only its settle window, instead of dbt adding the new column beside the old one (empty
-- on every settled day) or needing a --full-refresh. Table marts get the new name on their next
-- build anyway; they are renamed too so BI sees one name from the moment of the upgrade. A
-- warehouse that has no marts yet (or already has the new names) is left as it is.
DO $rename$
DECLARE
  target record;
BEGIN
  FOR target IN
    SELECT n.nspname AS schema_name, c.relname AS table_name, r.old_name, r.new_name
    FROM (VALUES
      ('fct_calls', 'sip_trunk', 'placing_trunk_name'),
      ('rpt_call_kpis_daily', 'sip_trunk', 'placing_trunk_name'),
      ('rpt_call_kpis_daily_local', 'sip_trunk', 'placing_trunk_name'),
      ('audit_call_rates', 'sip_trunk', 'placing_trunk_name'),
      ('rpt_load_completeness', 'day', 'window_date'),
      ('rpt_call_cost_daily', 'calls', 'legs'),
      ('rpt_call_cost_daily', 'answered_calls', 'answered_legs'),
      ('rpt_call_volume_hourly', 'calls', 'legs'),
      ('rpt_call_volume_hourly', 'answered_calls', 'answered_legs'),
      ('rpt_call_volume_hourly', 'carried_in_calls', 'carried_in_legs'),
      ('rpt_call_volume_hourly', 'peak_concurrent_calls', 'peak_concurrent_legs')
    ) AS r (table_name, old_name, new_name)
    JOIN pg_catalog.pg_class AS c ON c.relname = r.table_name AND c.relkind = 'r'
    JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
      AND n.nspname IN ('analytics_marts', 'analytics_marts__previous')
    WHERE EXISTS (SELECT FROM pg_catalog.pg_attribute
                  WHERE attrelid = c.oid AND attname = r.old_name AND NOT attisdropped)
      AND NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
                      WHERE attrelid = c.oid AND attname = r.new_name AND NOT attisdropped)
  LOOP
    EXECUTE format('ALTER TABLE %I.%I RENAME COLUMN %I TO %I',
                   target.schema_name, target.table_name, target.old_name, target.new_name);
  END LOOP;
END
$rename$;

-- fct_calls' key was a unique index (dbt `indexes` config); it is the table's primary key now (dbt
-- macro primary_key). The published and kept tables turn their unique index into the primary key
-- (no second index on the same columns, no rebuild of it), so a build that continues from them
-- finds the key and does not add another.
DO $primary_key$
DECLARE
  target record;
BEGIN
  FOR target IN
    SELECT DISTINCT ON (n.nspname) n.nspname AS schema_name, c.relname AS table_name, i.relname AS index_name
    FROM pg_catalog.pg_class AS c
    JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
      AND n.nspname IN ('analytics_marts', 'analytics_marts__previous')
    JOIN pg_catalog.pg_index AS x ON x.indrelid = c.oid AND x.indisunique AND NOT x.indisprimary
      AND x.indpred IS NULL AND x.indexprs IS NULL
    JOIN pg_catalog.pg_class AS i ON i.oid = x.indexrelid
    WHERE c.relname = 'fct_calls' AND c.relkind = 'r'
      AND NOT EXISTS (SELECT FROM pg_catalog.pg_constraint WHERE conrelid = c.oid AND contype = 'p')
      AND (SELECT array_agg(a.attname::text ORDER BY k.ord)
           FROM unnest(x.indkey) WITH ORDINALITY AS k (attnum, ord)
           JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = k.attnum)
          = ARRAY['account', 'direction', 'call_uuid']
  LOOP
    EXECUTE format('ALTER TABLE %I.%I ADD CONSTRAINT %I PRIMARY KEY USING INDEX %I',
                   target.schema_name, target.table_name, target.table_name || '_pkey', target.index_name);
  END LOOP;
END
$primary_key$;
