-- Changes the loader makes to landing rows older than the marts' settle window (a re-counted window
-- re-read, a backfill, a row moved out of an old day) reach the marts at the next transform: it
-- looks for such changes since the last full build and then builds with --full-refresh (README,
-- "Decisions", "Old landing changes rebuild the marts"). The instant that build started reading
-- the landing tables, made conservative: the start of the oldest transaction of the loader's role
-- still open then, so a load that committed later (etl.run_slices.finished_at and
-- etl.landing_moves.moved_at are its transaction's start) is at or after it. Null for a `--select`
-- build (it does not rebuild every mart) and for publications before this migration.
ALTER TABLE etl.published_marts ADD COLUMN landing_seen_before timestamptz;
