-- One row per account × campaign × dimension (operating_system, browser, language) × value, over
-- the campaign's whole life: clicks and distinct clickers with that value, and its share of the
-- campaign's clicks (shares of a dimension sum to 1).
--
-- Built whole on every build, from the settled state (int_campaign_click_values_settled: per
-- clicker phone and value, the click days before its boundary) plus the clicks from that boundary
-- on, read by fct_link_clicks' click_date index: bounded by the campaigns' clickers and a few
-- weeks of clicks, not by every click ever made.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'campaign', 'dimension', 'value']) }}", 'transaction': false}]) }}
{%- set settled = settled_before(ref('int_campaign_click_values_settled')) %}
with clicks as (
    select account, campaign, phone, dimension, value, clicks
    from {{ ref('int_campaign_click_values_settled') }}
    union all
    {{ campaign_click_value_rows('click_date >= ' ~ settled) | indent(4) }}
),

per_clicker as (
    select account, campaign, dimension, value, phone, sum(clicks) as clicks
    from clicks
    group by 1, 2, 3, 4, 5
),

counted as (
    -- A click without a phone is a click, not a clicker.
    select account, campaign, dimension, value, sum(clicks) as clicks, count(phone) as unique_clickers
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
