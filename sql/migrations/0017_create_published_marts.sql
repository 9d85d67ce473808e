-- Write-audit-publish: `telecom-etl transform` builds and tests the marts in a build schema and
-- moves them into analytics_marts only when every error-level test passed. One row per publication:
-- when, by which run (null for a `transform` started alone, which records no run) and which dbt
-- invocation (its invocation_id, in dbt's log and run_results.json), and the marts it published.
-- BI reads the publication of each mart it sees through the view analytics_marts.published_marts,
-- which the first publication creates.
CREATE TABLE etl.published_marts (
  id                bigserial PRIMARY KEY,
  published_at      timestamptz NOT NULL DEFAULT now(),
  run_id            bigint REFERENCES etl.runs (id) ON DELETE SET NULL,
  dbt_invocation_id text,
  marts             text[] NOT NULL
);
COMMENT ON TABLE etl.published_marts IS
  'telecom-etl: one row per publication of the dbt marts into analytics_marts (write-audit-publish)';
