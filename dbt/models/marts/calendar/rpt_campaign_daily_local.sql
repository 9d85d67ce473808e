-- depends_on: {{ ref('stg_etl__account_time_zones') }}
-- One row per account-local day × account × campaign: rpt_campaign_daily with the day taken in the
-- account's time zone (config `timezone`): the messages submitted that local day
-- (fct_campaign_messages.submitted_local_date) and the clicks made that local day (the local date
-- of fct_link_clicks.clicked_at), the same columns (macros campaign_message_aggregates,
-- campaign_click_aggregates, campaign_funnel_columns). unique_clickers counts distinct phones
-- within the local day only: never sum it across days. is_partial_local_day: the local day is only
-- partly inside the UTC range both the messages and the short_link_metrics streams were read for
-- (each the account loads; macro is_partial_local_day).
--
-- Incremental (delete+insert by activity_local_date), as rpt_call_kpis_daily_local: a build
-- re-builds the local days from the earlier of its latest day with messages and its latest day with
-- clicks − (var settle_days + 2), reading each fact by its UTC date index from one day earlier;
-- every day when an account's zone changed since (macro time_zones_changed_since).
{{
    config(
        materialized='incremental',
        unique_key='activity_local_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['activity_local_date']}],
        post_hook=[{'sql': "{{ primary_key(this, ['activity_local_date', 'account', 'campaign']) }}", 'transaction': false}],
    )
}}
{%- set rebuild_all = is_incremental() and time_zones_changed_since(this) -%}
{%- if is_incremental() and not rebuild_all %}
{%- set days = var('settle_days', 3) + 2 -%}
{%- set window_start -%}
    coalesce(least({{ settle_window_start(this, 'activity_local_date', filter='messages_sent > 0', days=days, null_when_empty=true) }},
                   {{ settle_window_start(this, 'activity_local_date', filter='clicks > 0', days=days, null_when_empty=true) }}),
             '1970-01-01'::date)
{%- endset %}
{%- endif %}
with messages as (
    select account, campaign, submitted_local_date as activity_local_date, {{ campaign_message_aggregates() }}
    from {{ ref('fct_campaign_messages') }}
    {% if is_incremental() and not rebuild_all %}
    where submitted_date >= {{ window_start }} - 1
      and submitted_local_date >= {{ window_start }}
    {% endif %}
    group by 1, 2, 3
),

local_clicks as (
    select l.*, {{ local_date('l.clicked_at', 'z.time_zone') }} as activity_local_date
    from {{ ref('fct_link_clicks') }} as l
    left join {{ ref('stg_etl__account_time_zones') }} as z using (account)
    {% if is_incremental() and not rebuild_all %}
    where l.click_date >= {{ window_start }} - 1
    {% endif %}
),

clicks as (
    select account, campaign, activity_local_date, clicks, unique_clickers, converted_clickers, callbacks
    from (
        {{ campaign_click_aggregates(['account', 'campaign', 'activity_local_date'], relation='local_clicks',
                                     where=('activity_local_date >= ' ~ window_start) if is_incremental() and not rebuild_all else 'true')
           | indent(8) }}
    ) as per_day
)

select
    activity_local_date,
    account,
    coalesce(z.time_zone, 'UTC')                                                  as time_zone,
    campaign,
    {{ campaign_funnel_columns() }},
    {{ is_partial_local_day('activity_local_date', 'z.time_zone') }}             as is_partial_local_day,
    '{{ run_started_at.isoformat() }}'::timestamptz                                as built_at
from messages as m
full outer join clicks as c using (account, campaign, activity_local_date)
left join {{ ref('stg_etl__account_time_zones') }} as z using (account)
left join ({{ loaded_ranges_of(['messages', 'short_link_metrics']) }}) as loaded using (account)
