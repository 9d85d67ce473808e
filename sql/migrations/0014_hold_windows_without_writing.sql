-- A held read (too many rejects, a shrink, a drift, missing charges) writes nothing to its window
-- and leaves it open: its record says `held` and why (`hold_reason`). Before this migration a
-- window held for too many rejects loaded its valid rows (`too_many_rejects`); those records
-- become `held` with that reason.
ALTER TABLE etl.run_slices ADD COLUMN hold_reason text;
ALTER TABLE etl.run_slices DROP CONSTRAINT run_slices_status_check;
UPDATE etl.run_slices SET status = 'held', hold_reason = 'too_many_rejects' WHERE status = 'too_many_rejects';
ALTER TABLE etl.run_slices ADD CONSTRAINT run_slices_status_check
  CHECK (status IN ('succeeded', 'failed', 'skipped', 'held'));
ALTER TABLE etl.run_slices ADD CONSTRAINT run_slices_hold_reason_check
  CHECK ((status = 'held') = (hold_reason IS NOT NULL));
