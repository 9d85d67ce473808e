-- One token bucket per API key, shared by every worker process that reads with the key (workers on
-- several machines, one warehouse): a request takes its token in one atomic statement timed by this
-- server's clock, the one clock all the machines share, so N processes on one key never send more
-- than one process would. See src/api/shared-token-bucket.ts.
-- bucket_id is a salted SHA-256 of the key (hex): never the key, never the plain digest a process
-- groups its accounts' keys by in memory. Internal, like every etl table: nothing is granted to the
-- BI role (migration 0009).
CREATE TABLE etl.key_rate_buckets (
  bucket_id   text             PRIMARY KEY CHECK (bucket_id ~ '^[0-9a-f]{64}$'),
  rate        double precision NOT NULL CHECK (rate > 0),
  burst       double precision NOT NULL CHECK (burst >= 1),
  tokens      double precision NOT NULL,
  refilled_at timestamptz      NOT NULL,
  max_rate    double precision NOT NULL CHECK (max_rate > 0),
  updated_at  timestamptz      NOT NULL DEFAULT now()
);
COMMENT ON TABLE etl.key_rate_buckets IS
  'telecom-etl: the token bucket of each API key, shared by every worker process using the key';
COMMENT ON COLUMN etl.key_rate_buckets.bucket_id IS
  'sha256 hex of a fixed salt and the key: tells keys apart without storing them';
COMMENT ON COLUMN etl.key_rate_buckets.rate IS
  'requests per second now: the adaptive rate, cut on clusters of 429s and raised on runs of successes by any process';
COMMENT ON COLUMN etl.key_rate_buckets.burst IS 'tokens the bucket holds when idle (from the config)';
COMMENT ON COLUMN etl.key_rate_buckets.tokens IS
  'tokens as of refilled_at; negative is the queue of reservations already handed out';
COMMENT ON COLUMN etl.key_rate_buckets.max_rate IS 'the configured maximum rate, requests per second';
