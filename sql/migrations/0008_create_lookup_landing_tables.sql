-- Streams read one id at a time (lookups): a call's transcription and recording, a validation
-- token's results. Each id's state is kept in etl.tracked_requests (pending, final, none, expired,
-- not_found), so a run asks an id again only while its answer can still change.

-- What the id is and where it came from: {"source": "call"} for a call's transcription found in the
-- CDRs, {"source": "file"} for an uploaded file's transcription tracked with `telecom-etl track`,
-- {"source": "config"} / {"source": "cli"} for validation tokens.
ALTER TABLE etl.tracked_requests ADD COLUMN details jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE etl.tracked_requests ADD CONSTRAINT tracked_requests_status_check
  CHECK (status IN ('pending', 'final', 'none', 'expired', 'not_found'));
CREATE INDEX tracked_requests_open ON etl.tracked_requests (kind, account) WHERE status = 'pending';

-- GET /v1/speech-analytics/{id} (2024, and uploaded files on 2026) or
-- GET /v1/cdrs/{call_id}/transcription (calls on 2026): one row per transcription, keyed by the id
-- it was asked by (the call's uuid for a call, the request id for an uploaded file).
CREATE TABLE platform.transcriptions (
  _account          text        NOT NULL,
  request_id        text        NOT NULL,
  call_uuid         text,
  transcription_id  text        NOT NULL,
  status            text        NOT NULL,
  language          text,
  duration          integer,
  charge            numeric     NOT NULL,
  transcription_date timestamptz NOT NULL,
  score             numeric,
  summary           text,
  transcript        jsonb       NOT NULL,
  original_file     text,
  call_date         timestamptz,
  from_number       text,
  to_number         text,
  _run_id           bigint      NOT NULL,
  _extracted_at     timestamptz NOT NULL,
  _extra            jsonb,
  PRIMARY KEY (_account, request_id)
);

-- The speaker turns of each transcription (s and e are milliseconds from the call's answer).
CREATE TABLE platform.transcription_turns (
  _account       text        NOT NULL,
  request_id     text        NOT NULL,
  turn_index     integer     NOT NULL,
  speaker        text        NOT NULL,
  start_ms       integer     NOT NULL,
  end_ms         integer     NOT NULL,
  text           text        NOT NULL,
  sentiment      text        NOT NULL,
  _run_id        bigint      NOT NULL,
  _extracted_at  timestamptz NOT NULL,
  _extra         jsonb,
  PRIMARY KEY (_account, request_id, turn_index)
);

-- GET /v1/cdr/{uuid} (2026: /v1/cdrs/{call_id}) once per answered call with recording on.
CREATE TABLE platform.recordings (
  _account       text        NOT NULL,
  uuid           text        NOT NULL,
  date           timestamptz,
  recording_url  text,
  _run_id        bigint      NOT NULL,
  _extracted_at  timestamptz NOT NULL,
  _extra         jsonb,
  PRIMARY KEY (_account, uuid)
);

-- GET /v1/validation/{token} until it is done: the request's state...
CREATE TABLE platform.validations (
  _account       text        NOT NULL,
  token          text        NOT NULL,
  status         text        NOT NULL,
  count          integer     NOT NULL,
  pending        integer     NOT NULL,
  _run_id        bigint      NOT NULL,
  _extracted_at  timestamptz NOT NULL,
  _extra         jsonb,
  PRIMARY KEY (_account, token)
);

-- ...and its results, upserted by number as they appear.
CREATE TABLE platform.validation_results (
  _account           text        NOT NULL,
  token              text        NOT NULL,
  phone_number       text        NOT NULL,
  valid              boolean,
  country_code       text,
  e164_format        text,
  national_format    text,
  ported             boolean,
  mcc                text,
  mnc                text,
  number_type        text,
  carrier_name       text,
  risky_destination  boolean,
  unallocated_range  boolean,
  reachable          boolean,
  roaming            boolean,
  timezone           text,
  charge             numeric,
  error_code         text,
  _run_id            bigint      NOT NULL,
  _extracted_at      timestamptz NOT NULL,
  _extra             jsonb,
  PRIMARY KEY (_account, token, phone_number)
);
