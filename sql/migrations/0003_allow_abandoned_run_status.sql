-- A run whose process vanished without recording its end (SIGKILL, OOM kill, a lost host) stays
-- 'running' until a later command can tell it is gone; it then marks it 'abandoned' (see
-- src/warehouse/abandoned-runs.ts for the rule). 'interrupted' keeps meaning a run that stopped on
-- SIGINT/SIGTERM and recorded it.
ALTER TABLE etl.runs DROP CONSTRAINT runs_status_check;
ALTER TABLE etl.runs ADD CONSTRAINT runs_status_check
  CHECK (status IN ('running', 'succeeded', 'failed', 'partial', 'quarantined', 'interrupted', 'abandoned'));
