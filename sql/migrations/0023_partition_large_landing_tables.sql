-- The landing tables of the large streams (cdrs, messages, recordings, transactions) become
-- partitioned by calendar month (UTC) of their window column: a window's merge, its settled
-- re-reads and a dbt model's incremental filter touch only that month's partition, and retention
-- drops whole months (see `retention.landing_months`). A partitioned table's primary key must hold
-- the partition column, so the key becomes (account, id…, window column); the loader keeps the id
-- alone unique (a row whose window column changed is deleted from its old month when the new one
-- is merged). Months get their partition ahead (this month and the next three, here) or on first
-- use (etl.ensure_month_partition, called by the loader before a load that needs a new month).
--
-- Upgrading an existing warehouse moves each table's rows into the new partitions in this
-- migration's transaction; the dbt staging views that read these tables are dropped with the old
-- tables and rebuilt by the next transform (`telecom-etl transform`, or the next `nightly`).

-- One month's partition of a table partitioned by month, named <table>_pYYYY_MM, created once
-- (an advisory lock per table makes concurrent callers wait for each other, not fail).
CREATE FUNCTION etl.ensure_month_partition(parent regclass, month date) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  first_day date := date_trunc('month', month)::date;
  parent_schema text;
  parent_name text;
  partition_name text;
BEGIN
  SELECT n.nspname, c.relname INTO parent_schema, parent_name
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.oid = parent;
  partition_name := parent_name || '_p' || to_char(first_day, 'YYYY_MM');
  PERFORM pg_advisory_xact_lock(hashtext('etl.month_partition:' || parent_schema || '.' || parent_name));
  IF to_regclass(format('%I.%I', parent_schema, partition_name)) IS NULL THEN
    EXECUTE format(
      'CREATE TABLE %I.%I PARTITION OF %I.%I FOR VALUES FROM (%L) TO (%L)',
      parent_schema, partition_name, parent_schema, parent_name,
      first_day::text || ' 00:00:00+00', (first_day + interval '1 month')::date::text || ' 00:00:00+00');
  END IF;
  RETURN partition_name;
END
$$;

-- Moves one landing table into a new table partitioned by month of `window_column`, with the
-- primary key `key_columns` + window column and the same secondary indexes (given as
-- (name, columns) pairs). Rows whose window column is null (only possible in a warehouse loaded
-- before such rows became rejects) go to etl.rejects with their reason, never lost.
CREATE FUNCTION pg_temp.partition_by_month(
  table_name text, stream text, window_column text, key_columns text, indexes text[][]
) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  old_name text := table_name || '_before_partitioning';
  month date;
  i integer;
BEGIN
  EXECUTE format('ALTER TABLE platform.%I RENAME TO %I', table_name, old_name);
  EXECUTE format('ALTER INDEX platform.%I RENAME TO %I', table_name || '_pkey', old_name || '_pkey');
  FOR i IN 1 .. coalesce(array_length(indexes, 1), 0) LOOP
    EXECUTE format('ALTER INDEX platform.%I RENAME TO %I', indexes[i][1], old_name || '_' || indexes[i][1]);
  END LOOP;
  EXECUTE format(
    'CREATE TABLE platform.%I (LIKE platform.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (%I)',
    table_name, old_name, window_column);
  EXECUTE format('ALTER TABLE platform.%I ALTER COLUMN %I SET NOT NULL', table_name, window_column);
  EXECUTE format('ALTER TABLE platform.%I ADD PRIMARY KEY (%s, %I)', table_name, key_columns, window_column);
  FOR i IN 1 .. coalesce(array_length(indexes, 1), 0) LOOP
    EXECUTE format('CREATE INDEX %I ON platform.%I (%s)', indexes[i][1], table_name, indexes[i][2]);
  END LOOP;
  FOR month IN EXECUTE format(
    'SELECT DISTINCT date_trunc(''month'', %I AT TIME ZONE ''UTC'')::date FROM platform.%I WHERE %I IS NOT NULL
     UNION SELECT (date_trunc(''month'', now() AT TIME ZONE ''UTC'') + make_interval(months => m))::date
     FROM generate_series(0, 3) m',
    window_column, old_name, window_column)
  LOOP
    PERFORM etl.ensure_month_partition(format('platform.%I', table_name)::regclass, month);
  END LOOP;
  EXECUTE format(
    'INSERT INTO etl.rejects (account, stream, slice, raw, issues)
     SELECT _account, %L, ''migration 0023'', to_jsonb(t) - ''_run_id'' - ''_extracted_at'',
       jsonb_build_array(jsonb_build_object(''path'', %L, ''code'', ''null_key'',
         ''message'', %L || '' is null: a window column must never be null''))
     FROM platform.%I t WHERE %I IS NULL',
    stream, window_column, window_column, old_name, window_column);
  EXECUTE format('INSERT INTO platform.%I SELECT * FROM platform.%I WHERE %I IS NOT NULL',
    table_name, old_name, window_column);
  -- CASCADE: the dbt staging views over the old table; the next transform rebuilds them.
  EXECUTE format('DROP TABLE platform.%I CASCADE', old_name);
END
$$;

SELECT pg_temp.partition_by_month('cdrs', 'cdrs', 'date', '_account, direction, uuid',
  ARRAY[['cdrs_by_date', '_account, date']]);
SELECT pg_temp.partition_by_month('messages', 'messages', 'submitted_at', '_account, message_id',
  ARRAY[['messages_by_day', '_account, submitted_at']]);
SELECT pg_temp.partition_by_month('recordings', 'recordings', 'created_at', '_account, id',
  ARRAY[['recordings_by_created_at', '_account, created_at'], ['recordings_by_call', '_account, call_uuid']]);
SELECT pg_temp.partition_by_month('transactions', 'transactions', 'date', '_account, ledger_account, id',
  ARRAY[['transactions_by_date', '_account, date']]);

-- What retention (`retention.landing_months`) removed in a run: [{table, partition, month, rows, action}].
ALTER TABLE etl.runs ADD COLUMN retired_partitions jsonb;
