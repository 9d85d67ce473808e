-- depends_on: {{ ref('int_campaign_phones_settled') }}
-- Campaign reports add up to their facts. Returns every mismatch:
--   * per account × campaign × day, from the first day fct_campaign_messages' latest build wrote
--     (every day after a `--full-refresh`; the settle window after a nightly build): the daily
--     report's messages, deliveries, cost and clicks equal the facts' counts of that day (older
--     days were compared by the build that wrote them and have not changed since);
--   * per account × campaign, over the whole life: the totals report equals the sum of the daily
--     report (converted clickers and callbacks too: each is credited once, so they add up over
--     days), and its unique clickers are the distinct clicking phones: after a `--full-refresh`
--     every campaign, counting the phones of every click; after a nightly build the campaigns with
--     a message or click from that first day (the ones the totals re-built; the others have not
--     changed), counting the clicking phones of the settled state (int_campaign_phones_settled)
--     and of the clicks from its boundary on, so a nightly does not re-read every click of
--     campaigns that never end (the full refresh checks the state's fold against every click).
{#- The hint on the first line: the state is read on the nightly path only, and a manifest parsed
    by a `--full-refresh` (dbt's partial parse, kept in the work folder) is reused by the next
    nightly, which would otherwise not know the test depends on it. -#}
{#- The first day as a literal, so the facts are read by their date indexes. -#}
{%- set first_day = latest_build_first_day(ref('fct_campaign_messages'), 'submitted_date') %}
{%- set whole_life = flags.FULL_REFRESH %}
with fact_days as (
    select account, campaign, submitted_date as activity_date, count(*) as messages_sent,
           count(*) filter (where is_delivered) as messages_delivered, sum(cost_usd) as cost_usd, 0 as clicks
    from {{ ref('fct_campaign_messages') }}
    where submitted_date >= {{ first_day }}
    group by 1, 2, 3
    union all
    select account, campaign, click_date, 0, 0, 0, count(*)
    from {{ ref('fct_link_clicks') }}
    where click_date >= {{ first_day }}
    group by 1, 2, 3
),

facts_by_day as (
    select account, campaign, activity_date, sum(messages_sent) as messages_sent,
           sum(messages_delivered) as messages_delivered, sum(cost_usd) as cost_usd, sum(clicks) as clicks
    from fact_days
    group by 1, 2, 3
),

daily_window as (
    select account, campaign, activity_date, messages_sent, messages_delivered, cost_usd, clicks
    from {{ ref('rpt_campaign_daily') }}
    where activity_date >= {{ first_day }}
),

day_mismatches as (
    select 'day' as compared, account, campaign, activity_date,
           f.messages_sent as fact_sent, d.messages_sent as report_sent,
           f.clicks as fact_clicks, d.clicks as report_clicks
    from facts_by_day as f
    full outer join daily_window as d using (account, campaign, activity_date)
    -- A day with neither messages nor clicks has no report row.
    where coalesce(f.messages_sent, 0) is distinct from coalesce(d.messages_sent, 0)
       or coalesce(f.messages_delivered, 0) is distinct from coalesce(d.messages_delivered, 0)
       or coalesce(f.cost_usd, 0) is distinct from coalesce(d.cost_usd, 0)
       or coalesce(f.clicks, 0) is distinct from coalesce(d.clicks, 0)
),

{%- if not whole_life %}
live_campaigns as (
    select account, campaign from facts_by_day
    union
    select account, campaign from daily_window
),
{%- endif %}

daily_sums as (
    select account, campaign, sum(messages_sent) as messages_sent, sum(messages_delivered) as messages_delivered,
           sum(cost_usd) as cost_usd, sum(clicks) as clicks, sum(converted_clickers) as converted_clickers,
           sum(callbacks) as callbacks
    from {{ ref('rpt_campaign_daily') }}
    {%- if not whole_life %}
    where (account, campaign) in (select account, campaign from live_campaigns)
    {%- endif %}
    group by 1, 2
),

clickers as (
    {%- if whole_life %}
    select account, campaign, count(distinct clicker_phone) as unique_clickers
    from {{ ref('fct_link_clicks') }}
    group by 1, 2
    {%- else %}
    {%- set settled = settled_before(ref('int_campaign_phones_settled')) %}
    select account, campaign, count(distinct phone) as unique_clickers
    from (
        select account, campaign, phone
        from {{ ref('int_campaign_phones_settled') }}
        where clicks > 0
        union all
        select account, campaign, clicker_phone
        from {{ ref('fct_link_clicks') }}
        where click_date >= {{ settled }}
    ) as clicking_phones
    where (account, campaign) in (select account, campaign from live_campaigns)
    group by 1, 2
    {%- endif %}
),

totals as (
    select * from {{ ref('rpt_campaign_totals') }}
    {%- if not whole_life %}
    where (account, campaign) in (select account, campaign from live_campaigns)
    {%- endif %}
),

life_mismatches as (
    select 'life' as compared, account, campaign, null::date as activity_date,
           d.messages_sent as fact_sent, t.messages_sent as report_sent,
           c.unique_clickers as fact_clicks, t.unique_clickers as report_clicks
    from daily_sums as d
    full outer join totals as t using (account, campaign)
    full outer join clickers as c using (account, campaign)
    where coalesce(d.messages_sent, 0) is distinct from coalesce(t.messages_sent, 0)
       or coalesce(d.messages_delivered, 0) is distinct from coalesce(t.messages_delivered, 0)
       or coalesce(d.cost_usd, 0) is distinct from coalesce(t.cost_usd, 0)
       or coalesce(d.clicks, 0) is distinct from coalesce(t.clicks, 0)
       or coalesce(d.converted_clickers, 0) is distinct from coalesce(t.converted_clickers, 0)
       or coalesce(d.callbacks, 0) is distinct from coalesce(t.callbacks, 0)
       or coalesce(c.unique_clickers, 0) is distinct from coalesce(t.unique_clickers, 0)
)

select * from day_mismatches
union all
select * from life_mismatches
