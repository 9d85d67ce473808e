-- A stream whose account's host cannot be reached (its name does not resolve, or it refuses every
-- connection) ends 'unreachable': the account stopped at once, as for a refused key ('auth_failed').
ALTER TABLE etl.run_streams DROP CONSTRAINT run_streams_status_check;
ALTER TABLE etl.run_streams ADD CONSTRAINT run_streams_status_check
  CHECK (status IN ('running', 'succeeded', 'failed', 'skipped', 'not_provisioned', 'auth_failed', 'unreachable', 'interrupted', 'abandoned'));
