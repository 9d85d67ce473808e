-- depends_on: {{ ref('stg_etl__account_time_zones') }}
-- One row per account-local day × account × product with usage: rpt_usage_daily with the day taken
-- in the account's time zone (config `timezone`), the same products dated the same way (macro
-- usage_by_day): calls and forward fees by fct_calls.call_local_date, transcriptions by their call's
-- local day, validations and messages by the local date of when they were made. Summed over every
-- day of an account, it equals rpt_usage_daily. is_partial_local_day: the local day is only partly
-- inside the UTC range the stream dating the row was read for (cdrs for calls, forward_fees and
-- transcriptions, messages for messages; null for validations, which are not read by dated
-- windows; macro is_partial_local_day).
--
-- Incremental (delete+insert by usage_local_date): a build re-builds the local days from its latest
-- one − (var usage_rebuild_days + 2), as rpt_usage_daily with rpt_call_kpis_daily_local's two more
-- days; every day when an account's zone changed since (macro time_zones_changed_since).
{{
    config(
        materialized='incremental',
        unique_key='usage_local_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['usage_local_date']}],
        post_hook=[{'sql': "{{ primary_key(this, ['usage_local_date', 'account', 'product']) }}", 'transaction': false}],
    )
}}
{%- set rebuild_all = is_incremental() and time_zones_changed_since(this) -%}
{%- set window_start = settle_window_start(this, 'usage_local_date', days=var('usage_rebuild_days', 10) + 2) if is_incremental() and not rebuild_all else none %}
with usage_days as (
    {{ usage_by_day(window_start, local=true) | indent(4) }}
)
select
    u.usage_local_date,
    u.account,
    coalesce(z.time_zone, 'UTC')                                                as time_zone,
    u.product,
    u.usage_usd,
    u.usage_items,
    u.missing_charge_count,
    u.estimated_missing_charge_usd,
    case u.product
        when 'validations' then null
        when 'messages' then {{ is_partial_local_day('u.usage_local_date', 'z.time_zone', 'loaded_messages') }}
        else {{ is_partial_local_day('u.usage_local_date', 'z.time_zone', 'loaded_calls') }}
    end                                                                          as is_partial_local_day,
    '{{ run_started_at.isoformat() }}'::timestamptz                              as built_at
from usage_days as u
left join {{ ref('stg_etl__account_time_zones') }} as z using (account)
left join ({{ loaded_ranges_of(['cdrs']) }}) as loaded_calls using (account)
left join ({{ loaded_ranges_of(['messages']) }}) as loaded_messages using (account)
