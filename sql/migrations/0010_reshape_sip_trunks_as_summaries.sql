-- GET /v1/trunks lists trunk summaries (the platform's published reference), not every setting:
-- platform.sip_trunks takes the summary's columns. The settings the list does not carry (limits,
-- IP restriction, rewrite rules, created_at, host) are dropped; the summary's authentication,
-- approval status and month-to-date outbound totals (talk_time seconds, charge USD) are added.
-- The table is the account's whole set, rewritten by every run: its rows are emptied here, so the
-- new NOT NULL columns need no invented values, and the next run lists the trunks again.
-- CASCADE: dbt's staging view of this table (stg_platform__sip_trunks, and views built on it) reads
-- dropped columns; it is dropped with them and the next transform builds it again.
TRUNCATE platform.sip_trunks;

ALTER TABLE platform.sip_trunks
  DROP COLUMN created_at CASCADE,
  DROP COLUMN allowed_ips CASCADE,
  DROP COLUMN ip_restrict CASCADE,
  DROP COLUMN channels_restrict CASCADE,
  DROP COLUMN max_channels CASCADE,
  DROP COLUMN cost_limit CASCADE,
  DROP COLUMN max_call_cost CASCADE,
  DROP COLUMN call_restrict CASCADE,
  DROP COLUMN call_limit CASCADE,
  DROP COLUMN didinfo_enabled CASCADE,
  DROP COLUMN rewrite_enabled CASCADE,
  DROP COLUMN rewrite_prefix CASCADE,
  DROP COLUMN rewrite_cond CASCADE,
  DROP COLUMN host CASCADE,
  ALTER COLUMN callerid DROP NOT NULL,
  -- `Digest` (registration) or `IP auth`.
  ADD COLUMN auth_method  text    NOT NULL,
  -- The IP-authentication request, {"host", "status"}; null for a Digest trunk.
  ADD COLUMN host_request jsonb,
  -- `active` (may place calls) or `pending` (awaiting the platform's approval).
  ADD COLUMN status       text    NOT NULL,
  -- Outbound charge of the current month so far, USD, as of the read (resets each month).
  ADD COLUMN charge       numeric NOT NULL,
  -- Outbound talk time of the current month so far, seconds, as of the read (resets each month).
  ADD COLUMN talk_time    integer NOT NULL,
  -- Caller-id passthrough is active (several caller ids).
  ADD COLUMN passthrough  boolean NOT NULL;
