-- depends_on: {{ ref('stg_etl__account_time_zones') }}
-- Call KPIs per account-local call day × account × direction × destination country × SIP trunk:
-- rpt_call_kpis_daily with the day taken in the account's time zone (fct_calls.call_local_date,
-- config `timezone`), the same measures (macro call_kpi_measures). A local day of an account east of
-- UTC starts the UTC day before; west of UTC it ends the UTC day after.
--
-- Incremental (delete+insert by call_local_date): a build re-builds the local days from its latest
-- one − (var settle_days + 2): a leg fct_calls re-processed (UTC day ≥ its latest − settle_days) is
-- on a local day at most one day earlier, and this report's latest local day is at most one day
-- after fct_calls' latest UTC day. It reads the legs of those local days by the call_date index
-- (one UTC day earlier). When an account's time zone changed since its last build (macro
-- time_zones_changed_since), every day is re-built. `--full-refresh` rebuilds every day.
-- is_partial_local_day: the local day is only partly inside the UTC range the cdrs stream was read
-- for (int_stream_ranges_loaded, macro is_partial_local_day); the last local day's flag is
-- re-computed by every build (it is in the window), the first day's only by a `--full-refresh`.
{{
    config(
        materialized='incremental',
        unique_key='call_local_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        post_hook=['{{ analyze_if_stale(this) }}', {'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
        indexes=[{'columns': ['call_local_date']}],
    )
}}
{%- set rebuild_all = is_incremental() and time_zones_changed_since(this) -%}
{%- if is_incremental() and not rebuild_all -%}
{%- set window_start = settle_window_start(this, 'call_local_date', days=var('settle_days', 3) + 2, requires=['partial_cost_legs', 'is_partial_local_day', grain_key_column()]) -%}
{%- endif %}
with calls as (
    select
        *,
        not is_child_leg                                        as is_root
    from {{ ref('fct_calls') }}
    where called_at is not null
    {% if is_incremental() and not rebuild_all %}
      and call_date >= {{ window_start }} - 1
      and call_local_date >= {{ window_start }}
    {% endif %}
),
days as (
    select
        call_local_date,
        account,
        time_zone,
        direction,
        destination_country,
        placing_trunk_name,
        {{ call_kpi_measures() | indent(8) | trim }}
    from calls
    group by 1, 2, 3, 4, 5, 6
)
select
    d.*,
    {{ is_partial_local_day('d.call_local_date', 'd.time_zone') }} as is_partial_local_day,
    '{{ run_started_at.isoformat() }}'::timestamptz                 as built_at,
    {{ grain_key(['d.call_local_date', 'd.account', 'd.direction', 'd.destination_country', 'd.placing_trunk_name']) }}
from days as d
left join ({{ loaded_ranges_of(['cdrs']) }}) as loaded using (account)
