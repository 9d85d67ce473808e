-- Control schema: run history, per-slice statistics, completed windows, quarantined rows and
-- requests the platform answers asynchronously. Landing tables live in schema "platform".
CREATE SCHEMA IF NOT EXISTS etl;
CREATE SCHEMA IF NOT EXISTS platform;

CREATE TABLE etl.runs (
  id           bigserial PRIMARY KEY,
  command      text        NOT NULL,
  arguments    jsonb       NOT NULL DEFAULT '{}'::jsonb,  -- never holds a secret
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  status       text        NOT NULL DEFAULT 'running'
               CHECK (status IN ('running', 'succeeded', 'failed', 'partial', 'quarantined', 'interrupted')),
  exit_code    integer,
  host         text        NOT NULL DEFAULT '',
  pid          integer
);

CREATE TABLE etl.run_slices (
  id              bigserial PRIMARY KEY,
  run_id          bigint      NOT NULL REFERENCES etl.runs (id) ON DELETE CASCADE,
  account         text        NOT NULL,
  stream          text        NOT NULL,
  slice           text        NOT NULL,              -- window "2026-08-01..2026-08-02" or another slice id
  window_start    date,
  window_end      date,                               -- exclusive
  status          text        NOT NULL CHECK (status IN ('succeeded', 'failed', 'skipped')),
  requests        integer     NOT NULL DEFAULT 0,
  retries         integer     NOT NULL DEFAULT 0,
  rows_fetched    integer     NOT NULL DEFAULT 0,
  rows_inserted   integer     NOT NULL DEFAULT 0,
  rows_updated    integer     NOT NULL DEFAULT 0,
  rows_unchanged  integer     NOT NULL DEFAULT 0,
  rows_deleted    integer     NOT NULL DEFAULT 0,
  rows_rejected   integer     NOT NULL DEFAULT 0,
  started_at      timestamptz NOT NULL,
  finished_at     timestamptz NOT NULL DEFAULT now(),
  error           text
);
CREATE INDEX run_slices_by_stream ON etl.run_slices (account, stream, window_start);
CREATE INDEX run_slices_by_run ON etl.run_slices (run_id);

-- The SET of completed windows per (account, stream): a failed window never hides behind a watermark.
CREATE TABLE etl.stream_state (
  account       text        NOT NULL,
  stream        text        NOT NULL,
  window_start  date        NOT NULL,
  window_end    date        NOT NULL,                 -- exclusive
  completed_at  timestamptz NOT NULL DEFAULT now(),
  run_id        bigint      REFERENCES etl.runs (id) ON DELETE SET NULL,
  PRIMARY KEY (account, stream, window_start)
);

CREATE TABLE etl.rejects (
  id            bigserial PRIMARY KEY,
  run_id        bigint      REFERENCES etl.runs (id) ON DELETE SET NULL,
  account       text        NOT NULL,
  stream        text        NOT NULL,
  slice         text        NOT NULL,
  raw           jsonb       NOT NULL,
  issues        jsonb       NOT NULL,
  received_at   timestamptz NOT NULL DEFAULT now(),
  replayed_at   timestamptz
);
CREATE INDEX rejects_by_stream ON etl.rejects (account, stream, slice);

CREATE TABLE etl.tracked_requests (
  kind          text        NOT NULL,                 -- transcription, validation, ...
  account       text        NOT NULL,
  external_id   text        NOT NULL,
  status        text        NOT NULL,
  attempts      integer     NOT NULL DEFAULT 0,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  last_error    text,
  PRIMARY KEY (kind, account, external_id)
);
