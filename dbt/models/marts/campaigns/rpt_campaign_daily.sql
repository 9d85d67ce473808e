-- One row per UTC day × account × campaign: the messages submitted that day and the clicks made
-- that day (a click usually comes hours after its message, so a day's clicks are not the clicks of
-- that day's messages). unique_clickers counts distinct phones within the day only: never sum it
-- across days; rpt_campaign_totals has the distinct count over a campaign's whole life.
--
-- Incremental (delete+insert by activity_date): a build re-builds the days each fact re-processed,
-- from the earlier of (latest day with messages here − var settle_days) and (latest day with
-- clicks here − settle_days), the windows of fct_campaign_messages and fct_link_clicks, each read
-- by its date index (a kind of activity the report has no rows of yet does not count; its first
-- rows arrive on new days). `--full-refresh` rebuilds every day.
{{
    config(
        materialized='incremental',
        unique_key='activity_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['activity_date']}],
        post_hook=[{'sql': "{{ primary_key(this, ['activity_date', 'account', 'campaign']) }}", 'transaction': false}],
    )
}}
{%- if is_incremental() %}
{#- A fact with no rows here (an account without short links, say) does not pull the window back
    to 1970: least() skips its null. -#}
{%- set window_start -%}
    coalesce(least({{ settle_window_start(this, 'activity_date', filter='messages_sent > 0', null_when_empty=true) }},
                   {{ settle_window_start(this, 'activity_date', filter='clicks > 0', null_when_empty=true, requires=['callbacks']) }}),
             '1970-01-01'::date)
{%- endset %}
{%- endif %}
with messages as (
    select account, campaign, submitted_date as activity_date, {{ campaign_message_aggregates() }}
    from {{ ref('fct_campaign_messages') }}
    {% if is_incremental() %}
    where submitted_date >= {{ window_start }}
    {% endif %}
    group by 1, 2, 3
),

clicks as (
    select account, campaign, click_date as activity_date, clicks, unique_clickers, converted_clickers, callbacks
    from (
        {{ campaign_click_aggregates(['account', 'campaign', 'click_date'],
                                     where=('click_date >= ' ~ window_start) if is_incremental() else 'true')
           | indent(8) }}
    ) as per_day
)

select
    activity_date,
    account,
    campaign,
    {{ campaign_funnel_columns() }}
from messages as m
full outer join clicks as c using (account, campaign, activity_date)
