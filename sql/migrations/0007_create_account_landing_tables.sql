-- Landing tables of the account's resources: SIP trunks and owned numbers (the dimensions of calls),
-- call webhooks (kept as history), 10DLC brand appeals, sub-accounts (never their API key), text
-- messages and the dated snapshot of the numbers catalog. Same conventions as 0002: every row
-- carries `_account`, `_run_id`, `_extracted_at` and `_extra`; money is numeric; credentials the
-- platform returns (a trunk's access token, a sub-account's API key) are never stored.

-- GET /v1/trunks, every run; the account's whole set (a trunk no longer listed is deleted).
CREATE TABLE platform.sip_trunks (
  _account                   text        NOT NULL,
  id                         bigint      NOT NULL,
  name                       text        NOT NULL,
  label                      text        NOT NULL,
  callerid                   text        NOT NULL,
  created_at                 timestamptz NOT NULL,
  allowed_ips                jsonb       NOT NULL,
  ip_restrict                boolean     NOT NULL,
  channels_restrict          boolean     NOT NULL,
  max_channels               integer,
  cost_limit                 boolean     NOT NULL,
  max_call_cost              numeric,
  call_restrict              boolean,
  call_limit                 integer,
  didinfo_enabled            boolean     NOT NULL,
  rewrite_enabled            boolean     NOT NULL,
  rewrite_prefix             text        NOT NULL,
  rewrite_cond               text        NOT NULL,
  call_recording_enabled     boolean     NOT NULL,
  machine_detection_enabled  boolean     NOT NULL,
  transcription_enabled      boolean     NOT NULL,
  transcription_threshold    integer     NOT NULL,
  host                       text        NOT NULL,
  multiple_numbers           boolean     NOT NULL,
  encrypted_media            boolean     NOT NULL,
  _run_id                    bigint      NOT NULL,
  _extracted_at              timestamptz NOT NULL,
  _extra                     jsonb,
  PRIMARY KEY (_account, id)
);

-- GET /v1/mydids (2026: /v1/numbers), every run; the account's whole set.
CREATE TABLE platform.numbers (
  _account                 text        NOT NULL,
  id                       bigint      NOT NULL,
  number                   text        NOT NULL,
  activation_fee           numeric     NOT NULL,
  monthly_fee              numeric     NOT NULL,
  per_min                  numeric     NOT NULL,
  city                     text        NOT NULL,
  state                    text,
  country                  text        NOT NULL,
  country_short_name       text        NOT NULL,
  destinations             jsonb       NOT NULL,
  channels                 integer     NOT NULL,
  require_docs             jsonb       NOT NULL,
  documents                jsonb       NOT NULL,
  domestic_cli             boolean     NOT NULL,
  label                    text,
  status                   text        NOT NULL,
  seconds                  text        NOT NULL,
  added                    timestamptz NOT NULL,
  paid_until               date        NOT NULL,
  sms_enabled              boolean     NOT NULL,
  sms_relay_url            text,
  cnam                     boolean,
  call_recording_enabled   boolean     NOT NULL,
  transcription_enabled    boolean     NOT NULL,
  transcription_threshold  integer     NOT NULL,
  free_min                 integer,
  unlimited                boolean,
  call_status_url          text,
  _run_id                  bigint      NOT NULL,
  _extracted_at            timestamptz NOT NULL,
  _extra                   jsonb,
  PRIMARY KEY (_account, id)
);

-- GET /v1/calls/webhooks, every run, kept as history: a changed or deleted webhook closes its open
-- version (valid_to) and a new one opens (valid_from), at the time of the read that saw it.
CREATE TABLE platform.call_webhooks (
  _account       text        NOT NULL,
  event_type     text        NOT NULL,
  url            text        NOT NULL,
  valid_from     timestamptz NOT NULL,
  valid_to       timestamptz,
  _run_id        bigint      NOT NULL,
  _extracted_at  timestamptz NOT NULL,
  _extra         jsonb,
  PRIMARY KEY (_account, event_type, valid_from)
);
CREATE UNIQUE INDEX call_webhooks_open ON platform.call_webhooks (_account, event_type) WHERE valid_to IS NULL;

-- GET /v3/10dlc/brands/{brand_id}/appeals per brand, every run; appeals have no id, so the
-- account's set is replaced, its rows numbered by content.
CREATE TABLE platform.brand_appeals (
  _account        text        NOT NULL,
  _row_ordinal    integer     NOT NULL,
  brand_id        text        NOT NULL,
  categories      jsonb       NOT NULL,
  created_at      timestamptz NOT NULL,
  evidence        jsonb       NOT NULL,
  explanation     text        NOT NULL,
  outcome         jsonb       NOT NULL,
  vetting_status  text        NOT NULL,
  status          text        NOT NULL,
  updated_at      timestamptz NOT NULL,
  _run_id         bigint      NOT NULL,
  _extracted_at   timestamptz NOT NULL,
  _extra          jsonb,
  PRIMARY KEY (_account, _row_ordinal)
);

-- GET /v1/sub-organizations/{id} for each configured id; merged by id. Never the api_key.
CREATE TABLE platform.sub_accounts (
  _account             text        NOT NULL,
  id                   bigint      NOT NULL,
  created_at           timestamptz NOT NULL,
  name                 text        NOT NULL,
  master_organization  bigint      NOT NULL,
  status               text        NOT NULL,
  sms_endpoint         text,
  dlr_endpoint         text,
  _run_id              bigint      NOT NULL,
  _extracted_at        timestamptz NOT NULL,
  _extra               jsonb,
  PRIMARY KEY (_account, id)
);

-- GET /v3/messages by UTC day of submitted_at, both directions; merged by message id. Status,
-- delivered_at and charge change after first listing, so days settle like CDRs.
CREATE TABLE platform.messages (
  _account       text        NOT NULL,
  message_id     text        NOT NULL,
  direction      text        NOT NULL,
  message_type   text        NOT NULL,
  from_number    text        NOT NULL,
  to_number      text        NOT NULL,
  mcc            text,
  mnc            text,
  body_text      text        NOT NULL,
  media          jsonb,
  tag            text,
  status         text        NOT NULL,
  segments       integer     NOT NULL,
  charge         numeric     NOT NULL,
  carrier_fees   numeric,
  submitted_at   timestamptz NOT NULL,
  sent_at        timestamptz,
  delivered_at   timestamptz,
  error_message  text,
  _run_id        bigint      NOT NULL,
  _extracted_at  timestamptz NOT NULL,
  _extra         jsonb,
  PRIMARY KEY (_account, message_id)
);
CREATE INDEX messages_by_day ON platform.messages (_account, submitted_at);

-- The cities of each configured country and each city's available numbers, once a day: a dated
-- snapshot (the day's set replaces that day's snapshot; older days stay, for price history).
CREATE TABLE platform.number_catalog (
  _account            text             NOT NULL,
  snapshot_date       date             NOT NULL,
  country_id          integer          NOT NULL,
  city_id             integer          NOT NULL,
  city_name           text             NOT NULL,
  number              text             NOT NULL,
  id                  bigint           NOT NULL,
  activation_fee      numeric          NOT NULL,
  monthly_fee         numeric          NOT NULL,
  per_min             numeric          NOT NULL,
  channels            text             NOT NULL,
  city                text             NOT NULL,
  country             text             NOT NULL,
  country_short_name  text             NOT NULL,
  cnam                boolean          NOT NULL,
  domestic_cli        boolean          NOT NULL,
  free_min            integer          NOT NULL,
  require_docs        jsonb            NOT NULL,
  sms_enabled         boolean          NOT NULL,
  sms_price           numeric          NOT NULL,
  _run_id             bigint           NOT NULL,
  _extracted_at       timestamptz      NOT NULL,
  _extra              jsonb,
  PRIMARY KEY (_account, snapshot_date, country_id, city_id, number)
);
