-- One row per account × campaign × dimension (operating_system, browser, language) × value, over
-- the campaign's whole life: clicks and distinct clickers with that value, and its share of the
-- campaign's clicks (shares of a dimension sum to 1).
with clicks as (
    select account, campaign, clicker_phone, is_converted, 'operating_system' as dimension, operating_system as value
    from {{ ref('fct_link_clicks') }}
    union all
    select account, campaign, clicker_phone, is_converted, 'browser', browser
    from {{ ref('fct_link_clicks') }}
    union all
    select account, campaign, clicker_phone, is_converted, 'language', language
    from {{ ref('fct_link_clicks') }}
),

counted as (
    {{ campaign_click_aggregates(['account', 'campaign', 'dimension', 'value'], clicks='clicks') | indent(4) }}
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
