-- Each account's time zone (IANA name) as the config sets it (`timezone`, default UTC; a sub-account
-- inherits its master's unless `sub_account_timezones` sets its own), written at the start of every
-- transform (`transform`, `nightly`, `demo`): the marts' local dates and hours read it.
-- updated_at moves only when an account's zone changes, so the incremental marts re-process that
-- account's rows (dbt macro time_zones_changed_since). An account no longer in the config keeps its
-- last row: its history stays in the zone it was read in.
CREATE TABLE etl.account_time_zones (
  account    text PRIMARY KEY,
  time_zone  text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
