-- One row per account × campaign × dimension (operating_system, browser, language) × value, over
-- the campaign's whole life: clicks and distinct clickers with that value, and its share of the
-- campaign's clicks (shares of a dimension sum to 1).
--
-- Built whole on every build, from the settled counts (int_campaign_click_mix_settled: per
-- campaign and value, the clicks and distinct clickers of the days before its boundary) plus the
-- clicks from that boundary on, read by fct_link_clicks' click_date index; a recent clicker counts
-- when the per-phone state (int_campaign_click_values_settled, looked up by its key) has no
-- settled click of theirs with that value. Bounded by the campaigns' values and a few weeks of
-- clicks, not by the campaigns' clickers or every click ever made.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'campaign', 'dimension', 'value']) }}", 'transaction': false}]) }}
{%- set settled = settled_before(ref('int_campaign_click_mix_settled')) %}
with recent as (
    -- Per account × campaign × phone × dimension × value: the clicks from the boundary on.
    {{ campaign_click_value_rows('click_date >= ' ~ settled) | indent(4) }}
),

recent_counted as (
    -- A click without a phone is a click, not a clicker.
    select account, campaign, dimension, value, sum(clicks) as clicks,
           count(phone) filter (where not exists (
               select from {{ ref('int_campaign_click_values_settled') }} as phones
               where phones.{{ grain_key_column() }} = recent.click_value_key
                 and phones.first_settled_before <= {{ settled }}
           )) as clickers
    from recent
    group by 1, 2, 3, 4
),

counted as (
    select account, campaign, dimension, value, sum(clicks) as clicks, sum(clickers) as unique_clickers
    from (
        select account, campaign, dimension, value, clicks, clickers from {{ ref('int_campaign_click_mix_settled') }}
        union all
        select account, campaign, dimension, value, clicks, clickers from recent_counted
    ) as parts
    group by 1, 2, 3, 4
)

select
    account,
    campaign,
    dimension,
    value,
    clicks,
    unique_clickers::bigint                                                         as unique_clickers,
    sum(clicks) over (partition by account, campaign, dimension)                    as campaign_clicks,
    round(clicks::numeric / sum(clicks) over (partition by account, campaign, dimension), 4) as share_of_clicks
from counted
