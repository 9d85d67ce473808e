-- Run history for `telecom-etl runs`, schema changes for `telecom-etl schema` (issue 15, section 3).

-- Answers 429 (too many requests) among a slice's requests: the platform's throttling, per window.
ALTER TABLE etl.run_slices ADD COLUMN throttled integer NOT NULL DEFAULT 0;

-- The dbt steps `nightly` ran after its load (build, source freshness): per step its verdict,
-- counts, failing and warning nodes; and the exit code of the whole `nightly`. NULL for a run
-- whose command ran no dbt step (`run`, `backfill`, a `nightly` whose load could not start).
ALTER TABLE etl.runs ADD COLUMN dbt jsonb;

-- Fields the platform sends that the loader's schema does not know (they land in `_extra`), one row
-- per (stream, field): when and where it was first seen, the JSON type of a value, how many rows
-- carried it. A row here is reported once, by the run that inserts it.
CREATE TABLE etl.unknown_fields (
  stream             text        NOT NULL,
  field              text        NOT NULL,
  first_seen_run     bigint      REFERENCES etl.runs (id) ON DELETE SET NULL,
  first_seen_at      timestamptz NOT NULL DEFAULT now(),
  first_seen_account text        NOT NULL,
  first_seen_window  text        NOT NULL,
  last_seen_run      bigint      REFERENCES etl.runs (id) ON DELETE SET NULL,
  last_seen_at       timestamptz NOT NULL DEFAULT now(),
  example_type       text        NOT NULL
                     CHECK (example_type IN ('string', 'number', 'boolean', 'object', 'array', 'null')),
  rows_seen          bigint      NOT NULL DEFAULT 0,
  accounts           text[]      NOT NULL DEFAULT '{}',
  PRIMARY KEY (stream, field)
);
CREATE INDEX unknown_fields_by_run ON etl.unknown_fields (first_seen_run);
