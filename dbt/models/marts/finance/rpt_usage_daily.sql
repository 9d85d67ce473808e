-- One row per UTC day × account × product with usage: what the account spent that day as the
-- platform bills it (the daily products of fct_invoices_reconciled; number fees are monthly and
-- appear there only). Month-to-date spend is a sum of these rows. usage_usd sums the charges the
-- platform sent: a call leg missing its charge (macro charge_is_missing) adds nothing to it and is
-- counted in missing_charge_count, estimated in estimated_missing_charge_usd (calls rows only).
-- The products and how each is dated: macro usage_by_day (shared with rpt_usage_daily_local).
--
-- Incremental (delete+insert by usage_date): a build re-builds the days from the latest day built
-- here − var usage_rebuild_days (default 10: a transcription is dated by its call's day and can
-- land up to transcription_max_age_days = 7 days later, after the 3 days calls take to settle).
-- Each source is read from that day on by its own index (fct_calls by call_date, messages by
-- submitted_at), so a nightly build reads days, not years. `--full-refresh` rebuilds every day
-- (after raising transcription_max_age_days, say).
{{
    config(
        materialized='incremental',
        unique_key='usage_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['usage_date']}],
        post_hook=[{'sql': "{{ primary_key(this, ['usage_date', 'account', 'product']) }}", 'transaction': false}],
    )
}}
{%- set window_start = settle_window_start(this, 'usage_date', days=var('usage_rebuild_days', 10), requires=['missing_charge_count']) if is_incremental() else none %}
{{ usage_by_day(window_start) }}
