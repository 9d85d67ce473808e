-- Rows the loader moved to another day in a landing table partitioned by month (the platform
-- changed a row's date or time: its key and window value no longer match the copy the warehouse
-- holds, which the loader deletes when the new copy lands). One row per move, written in the
-- load's transaction. The facts partitioned by month read it to find the rows whose old copy
-- they must delete (dbt macro delete_moved_rows): a nightly probes only the rows that moved, not
-- every new row in every month's partition.
CREATE TABLE etl.landing_moves (
  id bigserial PRIMARY KEY,
  -- The landing table, schema-qualified (platform.cdrs).
  landing_table text NOT NULL,
  account text NOT NULL,
  -- The row's key without the account, in the landing table's key order, as text.
  row_key text[] NOT NULL,
  -- The window value the old copy had, as text (exact for any type).
  moved_from text NOT NULL,
  -- The UTC day of the row's new window value.
  moved_to_day date NOT NULL,
  run_id bigint,
  moved_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX landing_moves_by_day ON etl.landing_moves (landing_table, moved_to_day);
