-- depends_on: {{ ref('stg_etl__account_time_zones') }}
-- SMS/MMS per account-local submission day × account × country × carrier × status × direction ×
-- kind × channel: rpt_messages_daily with the day taken in the account's time zone
-- (fct_messages.submitted_local_date, config `timezone`), the same measures (macro
-- message_measures). is_partial_local_day: the local day is only partly inside the UTC range the
-- messages stream was read for (int_stream_ranges_loaded, macro is_partial_local_day).
--
-- Incremental (delete+insert by submitted_local_date), as rpt_call_kpis_daily_local: a build
-- re-builds the local days from its latest one − (var settle_days + 2), reading fct_messages by its
-- submitted_date index from one UTC day earlier; every day when an account's zone changed since
-- (macro time_zones_changed_since). The last local day's flag is re-computed by every build (it is
-- in the window); the first day's changes only with a backfill of earlier days (`--full-refresh`).
{{
    config(
        materialized='incremental',
        unique_key='submitted_local_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['submitted_local_date']}],
        post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
    )
}}
{%- set rebuild_all = is_incremental() and time_zones_changed_since(this) -%}
{%- if is_incremental() and not rebuild_all -%}
{%- set window_start = settle_window_start(this, 'submitted_local_date', days=var('settle_days', 3) + 2, requires=[grain_key_column()]) -%}
{%- endif %}
with days as (
    select
        submitted_local_date,
        account,
        time_zone,
        country_iso2,
        carrier,
        status,
        direction,
        kind,
        channel,
        {{ message_measures() | indent(8) | trim }}
    from {{ ref('fct_messages') }}
    {% if is_incremental() and not rebuild_all %}
    where submitted_date >= {{ window_start }} - 1
      and submitted_local_date >= {{ window_start }}
    {% endif %}
    group by 1, 2, 3, 4, 5, 6, 7, 8, 9
)
select
    d.*,
    {{ is_partial_local_day('d.submitted_local_date', 'd.time_zone') }} as is_partial_local_day,
    '{{ run_started_at.isoformat() }}'::timestamptz                     as built_at,
    {{ grain_key(['d.submitted_local_date', 'd.account', 'd.country_iso2', 'd.carrier', 'd.status', 'd.direction', 'd.kind', 'd.channel']) }}
from days as d
left join ({{ loaded_ranges_of(['messages']) }}) as loaded using (account)
