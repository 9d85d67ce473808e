-- One row per UTC day × account × campaign: the messages submitted that day and the clicks made
-- that day (a click usually comes hours after its message, so a day's clicks are not the clicks of
-- that day's messages). unique_clickers counts distinct phones within the day only: never sum it
-- across days; rpt_campaign_totals has the distinct count over a campaign's whole life.
with messages as (
    select account, campaign, submitted_date as activity_date, {{ campaign_message_aggregates() }}
    from {{ ref('fct_campaign_messages') }}
    group by 1, 2, 3
),

clicks as (
    select account, campaign, click_date as activity_date, {{ campaign_click_aggregates() }}
    from {{ ref('fct_link_clicks') }}
    group by 1, 2, 3
)

select
    activity_date,
    account,
    campaign,
    {{ campaign_funnel_columns() }}
from messages as m
full outer join clicks as c using (account, campaign, activity_date)
