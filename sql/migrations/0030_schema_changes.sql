-- Schema contracts (issue 36 item 4): a stream whose `schema_contract` is `evolve` turns each new
-- top-level scalar field the platform sends into a typed column of its landing table. Each column
-- so added is recorded once here: the stream, the field (the column's name), the type inferred
-- from its first values, and the run, account and window that first carried it.

CREATE TABLE etl.schema_changes (
  stream        text        NOT NULL,
  field         text        NOT NULL,
  column_type   text        NOT NULL CHECK (column_type IN ('text', 'numeric', 'boolean')),
  first_run     bigint      REFERENCES etl.runs (id) ON DELETE SET NULL,
  first_account text        NOT NULL,
  first_window  text        NOT NULL,
  added_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stream, field)
);
CREATE INDEX schema_changes_by_run ON etl.schema_changes (first_run);
