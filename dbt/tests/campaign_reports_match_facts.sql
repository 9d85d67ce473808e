-- Campaign reports add up to their facts: per account × campaign, the daily report's messages,
-- deliveries, cost and clicks sum to the facts' counts, and the totals report equals them too,
-- with unique clickers counted distinct over the whole life. Returns every mismatch.
with facts as (
    select account, campaign, count(*) as messages_sent, count(*) filter (where is_delivered) as messages_delivered,
           sum(cost_usd) as cost_usd, 0 as clicks, 0 as unique_clickers
    from {{ ref('fct_campaign_messages') }}
    group by 1, 2
    union all
    select account, campaign, 0, 0, 0, count(*), count(distinct clicker_phone)
    from {{ ref('fct_link_clicks') }}
    group by 1, 2
),

fact_totals as (
    select account, campaign, sum(messages_sent) as messages_sent, sum(messages_delivered) as messages_delivered,
           sum(cost_usd) as cost_usd, sum(clicks) as clicks, sum(unique_clickers) as unique_clickers
    from facts
    group by 1, 2
),

daily as (
    select account, campaign, sum(messages_sent) as messages_sent, sum(messages_delivered) as messages_delivered,
           sum(cost_usd) as cost_usd, sum(clicks) as clicks
    from {{ ref('rpt_campaign_daily') }}
    group by 1, 2
)

select f.*, d.messages_sent as daily_sent, t.messages_sent as totals_sent, t.unique_clickers as totals_unique
from fact_totals as f
full outer join daily as d using (account, campaign)
full outer join {{ ref('rpt_campaign_totals') }} as t using (account, campaign)
where d.messages_sent is distinct from f.messages_sent
   or d.messages_delivered is distinct from f.messages_delivered
   or d.cost_usd is distinct from f.cost_usd
   or d.clicks is distinct from f.clicks
   or t.messages_sent is distinct from f.messages_sent
   or t.messages_delivered is distinct from f.messages_delivered
   or t.cost_usd is distinct from f.cost_usd
   or t.clicks is distinct from f.clicks
   or t.unique_clickers is distinct from f.unique_clickers
