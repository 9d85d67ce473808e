-- Recordings are read by date window from GET /v1/recordings (both API revisions), a page of many
-- at a time, no longer one GET /v1/cdr/{uuid} per call. The list's items have their own shape
-- (the platform's recording id, created_at, duration, from, to, call_uuid, url), so the table of
-- the old lookup is replaced: its rows (call uuid, date, recording_url) are re-read by window on
-- the next run (the stream has no completed windows yet, so its first run reads the whole
-- lookback). The lookup's per-call states and its quarantined rows are dropped with it.
-- CASCADE: dbt's staging view of this table (stg_platform__recordings, and views built on it)
-- reads the old columns; the next transform builds them again on the new table.
DROP TABLE platform.recordings CASCADE;

-- GET /v1/recordings?from_date=D&to_date=D by UTC day of created_at (the end of the call); merged
-- by the platform's recording id; windows settle like CDRs (a late CDR's recording is listed late).
CREATE TABLE platform.recordings (
  _account       text        NOT NULL,
  id             bigint      NOT NULL,
  created_at     timestamptz NOT NULL,
  duration       integer     NOT NULL,
  from_number    text        NOT NULL,
  to_number      text        NOT NULL,
  call_uuid      text        NOT NULL,
  url            text        NOT NULL,
  _run_id        bigint      NOT NULL,
  _extracted_at  timestamptz NOT NULL,
  _extra         jsonb,
  PRIMARY KEY (_account, id)
);
CREATE INDEX recordings_by_created_at ON platform.recordings (_account, created_at);
CREATE INDEX recordings_by_call ON platform.recordings (_account, call_uuid);

DELETE FROM etl.tracked_requests WHERE kind = 'recording';

-- Rows the old lookup quarantined (single-CDR bodies, slices `ids:<n>:<uuid>`) could never be
-- replayed into the new table (another shape, no window); the recordings they were about are read
-- again from the list, so they are dropped rather than left pending forever.
DELETE FROM etl.rejects WHERE stream = 'recordings' AND slice LIKE 'ids:%';
