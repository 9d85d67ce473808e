-- A run whose process died (SIGKILL, OOM kill) is marked 'abandoned' in etl.runs by a later
-- command (src/warehouse/abandoned-runs.ts); its etl.run_streams rows, written 'running' when it
-- planned them, are now marked 'abandoned' with it, so `status` never shows a stream running for
-- a run that is gone. Rows already left behind by runs abandoned before this migration are marked now.
ALTER TABLE etl.run_streams DROP CONSTRAINT run_streams_status_check;
ALTER TABLE etl.run_streams ADD CONSTRAINT run_streams_status_check
  CHECK (status IN ('running', 'succeeded', 'failed', 'skipped', 'not_provisioned', 'auth_failed', 'interrupted', 'abandoned'));
UPDATE etl.run_streams s SET status = 'abandoned'
FROM etl.runs r
WHERE r.id = s.run_id AND r.status = 'abandoned' AND s.status = 'running';
