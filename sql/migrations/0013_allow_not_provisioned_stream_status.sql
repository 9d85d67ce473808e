-- A stream whose product the account does not have (speech analytics for `transcriptions`: the
-- platform answers 403 "The service is not provisioned for your account.") ends a run as
-- `not_provisioned`: reported once, a warning, nothing lost (its ids keep their states).
ALTER TABLE etl.run_streams DROP CONSTRAINT run_streams_status_check;
ALTER TABLE etl.run_streams ADD CONSTRAINT run_streams_status_check
  CHECK (status IN ('running', 'succeeded', 'failed', 'skipped', 'not_provisioned', 'auth_failed', 'interrupted'));
