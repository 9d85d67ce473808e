-- One row per UTC day × account × product with usage: what the account spent that day as the
-- platform bills it (the daily products of fct_invoices_reconciled; number fees are monthly and
-- appear there only). Month-to-date spend is a sum of these rows.
--
-- Incremental (delete+insert by usage_date): a build re-builds the days from the latest day built
-- here − var usage_rebuild_days (default 10: a transcription is dated by its call's day and can
-- land up to transcription_max_age_days = 7 days later, after the 3 days calls take to settle);
-- `--full-refresh` rebuilds every day (after raising transcription_max_age_days, say).
{{
    config(
        materialized='incremental',
        unique_key='usage_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['usage_date']}],
    )
}}
select
    usage_date,
    account,
    product,
    usage_usd,
    usage_items
from {{ ref('int_charges_summed') }}
{% if is_incremental() %}
where usage_date >= {{ settle_window_start(this, 'usage_date', days=var('usage_rebuild_days', 10)) }}
{% endif %}
