-- Retention with `action: detach` left a retired month as a plain table under its partition's name
-- (platform.cdrs_p2026_05). etl.ensure_month_partition then took that table for the month's
-- partition, and every later load of a row of that month failed ("no partition of relation
-- cdrs"). Retention now renames what it detaches (<partition>_detached); this migration renames
-- the months earlier releases detached, and the function refuses, with a line saying why, a month
-- whose partition's name another table holds (a table detached by hand).

DO $$
DECLARE
  detached record;
  new_name text;
  suffix integer;
BEGIN
  FOR detached IN
    SELECT n.nspname AS schema, c.relname AS name
    FROM pg_catalog.pg_class c
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_catalog.pg_partitioned_table pt ON true
    JOIN pg_catalog.pg_class parent ON parent.oid = pt.partrelid AND parent.relnamespace = c.relnamespace
    WHERE n.nspname = 'platform' AND c.relkind = 'r' AND NOT c.relispartition
      AND c.relname ~ ('^' || parent.relname || '_p[0-9]{4}_[0-9]{2}$')
    ORDER BY 1, 2
  LOOP
    new_name := detached.name || '_detached';
    suffix := 1;
    WHILE to_regclass(format('%I.%I', detached.schema, new_name)) IS NOT NULL LOOP
      suffix := suffix + 1;
      new_name := detached.name || '_detached_' || suffix;
    END LOOP;
    EXECUTE format('ALTER TABLE %I.%I RENAME TO %I', detached.schema, detached.name, new_name);
    RAISE NOTICE 'renamed the detached month %.% to %', detached.schema, detached.name, new_name;
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION etl.ensure_month_partition(parent regclass, month date) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  first_day date := date_trunc('month', month)::date;
  parent_schema text;
  parent_name text;
  partition_name text;
  existing regclass;
BEGIN
  SELECT n.nspname, c.relname INTO parent_schema, parent_name
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.oid = parent;
  partition_name := parent_name || '_p' || to_char(first_day, 'YYYY_MM');
  PERFORM pg_advisory_xact_lock(hashtext('etl.month_partition:' || parent_schema || '.' || parent_name));
  existing := to_regclass(format('%I.%I', parent_schema, partition_name));
  IF existing IS NULL THEN
    EXECUTE format(
      'CREATE TABLE %I.%I PARTITION OF %I.%I FOR VALUES FROM (%L) TO (%L)',
      parent_schema, partition_name, parent_schema, parent_name,
      first_day::text || ' 00:00:00+00', (first_day + interval '1 month')::date::text || ' 00:00:00+00');
  ELSIF NOT EXISTS (SELECT FROM pg_catalog.pg_inherits WHERE inhrelid = existing AND inhparent = parent) THEN
    RAISE EXCEPTION '%.% is not a partition of %.% (a month detached by hand keeps its name): rename it (ALTER TABLE %.% RENAME TO %), then load again',
      parent_schema, partition_name, parent_schema, parent_name,
      parent_schema, partition_name, partition_name || '_detached'
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  RETURN partition_name;
END
$$;
