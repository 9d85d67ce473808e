-- One row per account × campaign × dimension (operating_system, browser, language) × value, over
-- the campaign's whole life: clicks and distinct clickers with that value, and its share of the
-- campaign's clicks (shares of a dimension sum to 1).
with clicks as (
    select account, campaign, clicker_phone, 'operating_system' as dimension, operating_system as value
    from {{ ref('fct_link_clicks') }}
    union all
    select account, campaign, clicker_phone, 'browser', browser
    from {{ ref('fct_link_clicks') }}
    union all
    select account, campaign, clicker_phone, 'language', language
    from {{ ref('fct_link_clicks') }}
),

per_clicker as (
    -- Two hash aggregations (per clicker, then per value) instead of count(distinct), which sorts
    -- every click by its text keys. A click without a phone is a click, not a clicker.
    select account, campaign, dimension, value, clicker_phone, count(*) as clicks
    from clicks
    group by 1, 2, 3, 4, 5
),

counted as (
    select
        account,
        campaign,
        dimension,
        value,
        sum(clicks)             as clicks,
        count(clicker_phone)    as unique_clickers
    from per_clicker
    group by 1, 2, 3, 4
)

select
    account,
    campaign,
    dimension,
    value,
    clicks,
    unique_clickers,
    sum(clicks) over (partition by account, campaign, dimension)                    as campaign_clicks,
    round(clicks::numeric / sum(clicks) over (partition by account, campaign, dimension), 4) as share_of_clicks
from counted
