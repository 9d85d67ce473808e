-- Windows are final only once read at least `settle_hours` after their end; a window whose read
-- rejected too large a share of its rows is loaded but held open (`too_many_rejects`); values that
-- look like data but are not (an answered call without a charge) are counted per slice.
ALTER TABLE etl.run_slices DROP CONSTRAINT run_slices_status_check;
ALTER TABLE etl.run_slices ADD CONSTRAINT run_slices_status_check
  CHECK (status IN ('succeeded', 'failed', 'skipped', 'too_many_rejects'));
-- Counts of rows per data-quality check, e.g. {"missing_charge": 4}; NULL when nothing was counted.
ALTER TABLE etl.run_slices ADD COLUMN quality jsonb;
-- True when this read completed (settled) its window.
ALTER TABLE etl.run_slices ADD COLUMN settled boolean NOT NULL DEFAULT false;

-- The instant the settling read happened: the earlier of the run's clock and the platform's.
ALTER TABLE etl.stream_state ADD COLUMN read_at timestamptz;

-- One row per (run, account, stream) the run planned, written when the run plans it (status
-- 'running') and again when it ends: `status` shows the latest run of every stream even when that
-- run loaded no window (killed early, skipped for a permission, every window failed).
CREATE TABLE etl.run_streams (
  run_id            bigint  NOT NULL REFERENCES etl.runs (id) ON DELETE CASCADE,
  account           text    NOT NULL,
  stream            text    NOT NULL,
  status            text    NOT NULL
                    CHECK (status IN ('running', 'succeeded', 'failed', 'skipped', 'auth_failed', 'interrupted')),
  api_revision      text,
  windows_planned   integer NOT NULL DEFAULT 0,
  windows_loaded    integer NOT NULL DEFAULT 0,
  windows_completed integer NOT NULL DEFAULT 0,
  windows_failed    integer NOT NULL DEFAULT 0,
  windows_held      integer NOT NULL DEFAULT 0,
  requests          integer NOT NULL DEFAULT 0,
  rows_fetched      integer NOT NULL DEFAULT 0,
  rows_inserted     integer NOT NULL DEFAULT 0,
  rows_updated      integer NOT NULL DEFAULT 0,
  rows_rejected     integer NOT NULL DEFAULT 0,
  quality           jsonb,
  errors            jsonb   NOT NULL DEFAULT '[]'::jsonb,
  PRIMARY KEY (run_id, account, stream)
);
CREATE INDEX run_streams_latest ON etl.run_streams (account, stream, run_id DESC);
