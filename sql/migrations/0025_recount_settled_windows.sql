-- The re-count of settled windows (README "How a nightly run works", "Re-count"): every `run` asks the
-- platform for the `pagination.total` of a budgeted share of the settled windows of the last
-- `recount_days` (one `per_page=1` request per window and direction, oldest unchecked first) and
-- compares it with what the warehouse holds; a window that differs is opened again and re-read.

-- What the latest re-count of each window (and each of its requests: a CDR window is counted per
-- direction) found: the platform's total and the rows the warehouse held (landing rows of the
-- window and direction, plus its pending rejects). `checked_at` orders the next re-counts: the
-- windows checked longest ago (or never) first.
CREATE TABLE etl.window_counts (
  account         text        NOT NULL,
  stream          text        NOT NULL,
  window_start    date        NOT NULL,
  window_end      date        NOT NULL,                 -- exclusive
  -- The request of the window counted: its direction (`placed`, `inbound`), '' for a stream asked once per window.
  part            text        NOT NULL,
  platform_total  integer     NOT NULL,
  warehouse_rows  integer     NOT NULL,
  checked_at      timestamptz NOT NULL DEFAULT now(),
  run_id          bigint      REFERENCES etl.runs (id) ON DELETE SET NULL,
  PRIMARY KEY (account, stream, window_start, part)
);

-- Windows that were settled and are open again (a re-count that differed, a held read), until a
-- read settles them again: their re-read may not delete a stored row without `--accept-shrink`,
-- and a merge stream's re-read also removes the rows the platform no longer lists there.
-- `fewer_on_platform`: the re-count found fewer rows on the platform than in the warehouse (the
-- run reads such a window after the account's other windows, so a row that moved to another day
-- is merged there first and is not taken for vanished).
CREATE TABLE etl.reopened_windows (
  account            text        NOT NULL,
  stream             text        NOT NULL,
  window_start       date        NOT NULL,
  window_end         date        NOT NULL,              -- exclusive
  -- `recount`, or the hold reason of the read that opened it (`too_many_rejects`, `shrink`, …).
  reason             text        NOT NULL,
  fewer_on_platform  boolean     NOT NULL DEFAULT false,
  run_id             bigint      REFERENCES etl.runs (id) ON DELETE SET NULL,
  reopened_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account, stream, window_start)
);

-- Per run and stream: the stored rows its reads deleted (a replaced window's rows the platform no
-- longer lists, a re-opened window's vanished rows), and what its re-count did
-- (`{"windows": 12, "requests": 24, "differing": [...], "stopped": "…"}`; null when none ran).
ALTER TABLE etl.run_streams ADD COLUMN rows_deleted integer NOT NULL DEFAULT 0;
ALTER TABLE etl.run_streams ADD COLUMN recount jsonb;
