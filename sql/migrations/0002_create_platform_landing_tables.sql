-- Landing tables of the platform's streams. Each row carries the account it came from, the run that
-- last wrote it, when it was extracted, and `_extra`: the fields the row schema does not know (never
-- dropped). Column names follow the API, except `from`/`to` (reserved words) which become
-- `from_number`/`to_number`. Money is numeric, never float. `_run_id` has no foreign key so that bulk
-- loads stay cheap; runs are never deleted.

-- GET /v1/cdr, once per direction (type=placed / type=received). Merged by key.
CREATE TABLE platform.cdrs (
  _account       text        NOT NULL,
  direction      text        NOT NULL CHECK (direction IN ('placed', 'received')),
  uuid           text        NOT NULL,
  date           timestamptz,
  from_number    text        NOT NULL,
  to_number      text        NOT NULL,
  disposition    text        NOT NULL,
  duration       integer     NOT NULL,
  destination    text,
  per_minute     numeric,
  charge         numeric,
  sip_trunk      text,
  forward_fee    numeric,
  parent_uuid    text,
  answered_by    text,
  _run_id        bigint      NOT NULL,
  _extracted_at  timestamptz NOT NULL,
  _extra         jsonb,
  PRIMARY KEY (_account, direction, uuid)
);
CREATE INDEX cdrs_by_date ON platform.cdrs (_account, date);

-- GET /v1/short-links/metrics. Rows have no id: a window's rows are replaced as a whole.
-- created_date is the UTC date of created_at (the window a row belongs to); _row_ordinal numbers the
-- rows of one (account, created_date) deterministically by content, so a re-run writes identical rows.
CREATE TABLE platform.short_link_metrics (
  _account          text             NOT NULL,
  created_date      date             NOT NULL,
  _row_ordinal      integer          NOT NULL,
  created_at        timestamptz      NOT NULL,
  latitude          double precision NOT NULL,
  longitude         double precision NOT NULL,
  operating_system  text             NOT NULL,
  browser           text             NOT NULL,
  language          text             NOT NULL,
  phone             text             NOT NULL,
  utm_campaign      text             NOT NULL,
  link_hash         text             NOT NULL,
  user_id           bigint           NOT NULL,
  _run_id           bigint           NOT NULL,
  _extracted_at     timestamptz      NOT NULL,
  _extra            jsonb,
  PRIMARY KEY (_account, created_date, _row_ordinal)
);

-- GET /v1/billing/invoices, all pages every run. Merged by key.
CREATE TABLE platform.invoices (
  _account       text        NOT NULL,
  id             bigint      NOT NULL,
  from_date      date        NOT NULL,
  to_date        date        NOT NULL,
  amount         numeric     NOT NULL,
  _run_id        bigint      NOT NULL,
  _extracted_at  timestamptz NOT NULL,
  _extra         jsonb,
  PRIMARY KEY (_account, id)
);

-- Pending rejects are what `rejects replay` reads and `status` counts.
CREATE INDEX rejects_pending ON etl.rejects (stream, account) WHERE replayed_at IS NULL;
