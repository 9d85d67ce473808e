-- One row per account × campaign over the campaign's whole life. unique_clickers is the distinct
-- count of clicking phones over every click of the campaign (not a sum of daily counts); CTR is
-- unique clickers / delivered messages; conversion rate is converted clickers / unique clickers.
-- A converted clicker counts in the campaign its first callback was credited to (fct_link_clicks
-- is_first_conversion), so converted_clickers and callbacks add up over an account's campaigns.
-- attributed_ctr_per_message = messages with an attributed click (fct_link_clicks.attributed_message_id) /
-- delivered messages; CTR per recipient = unique clickers / distinct delivered recipients.
--
-- Incremental (delete+insert by account × campaign): a build re-builds, over its whole life, each
-- campaign with a message or a click in the facts' windows: from the earlier of (latest day of a
-- message here − var settle_days) and (latest day of a click here − settle_days), what
-- fct_campaign_messages and fct_link_clicks re-processed since this report's last build (macro
-- settle_window_start). A campaign without activity in those days keeps its row: its totals
-- cannot have changed. A campaign's totals are its settled state (int_campaign_phones_settled:
-- per phone, the days before its boundary) plus the facts' rows from that boundary on, read by
-- their date indexes, rolled up by phone and then by campaign: a nightly build reads the live
-- campaigns' phones and a few weeks of facts, not every message ever sent. `--full-refresh`
-- rebuilds every campaign.
{{
    config(
        materialized='incremental',
        unique_key=['account', 'campaign'],
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        post_hook=[{'sql': "{{ primary_key(this, ['account', 'campaign']) }}", 'transaction': false}],
    )
}}
{%- if is_incremental() %}
{%- set window_start -%}
    coalesce(least({{ settle_window_start(this, "(last_message_at at time zone 'UTC')::date", null_when_empty=true, requires=['attributed_ctr_per_message', 'callbacks']) }},
                   {{ settle_window_start(this, "(last_click_at at time zone 'UTC')::date", null_when_empty=true, requires=['attributed_ctr_per_message', 'callbacks']) }}),
             '1970-01-01'::date)
{%- endset %}
{%- endif %}
{%- set settled = settled_before(ref('int_campaign_phones_settled')) %}
with
{%- if is_incremental() %}
live_campaigns as (
    select account, campaign from {{ ref('fct_campaign_messages') }} where submitted_date >= {{ window_start }}
    union
    select account, campaign from {{ ref('fct_link_clicks') }} where click_date >= {{ window_start }}
),
{%- endif %}

phone_rows as (
    -- The settled state of the campaigns...
    select
        account, campaign, phone, first_message_at, last_message_at, messages_sent, messages_delivered,
        segments, cost_usd, is_delivered_recipient, first_click_at, last_click_at, clicks, is_converted,
        clicked_messages, callbacks
    from {{ ref('int_campaign_phones_settled') }}
    {%- if is_incremental() %}
    where (account, campaign) in (select account, campaign from live_campaigns)
    {%- endif %}
    union all
    -- ...and their days not settled yet (a message's clicked-ness goes with its day).
    {{ campaign_phone_rows(
        messages_where='submitted_date >= ' ~ settled,
        clicks_where='click_date >= ' ~ settled,
        attributed_where='click_date >= ' ~ settled ~ " and (attributed_message_at at time zone 'UTC')::date >= " ~ settled)
       | indent(4) }}
),

phones as (
    {{ campaign_phone_rollup('phone_rows') | indent(4) }}
),

campaigns as (
    -- A phone is a recipient or clicker only when known (a click without a phone is a click, not a
    -- clicker); the click measures stay null for a campaign without clicks, as its ratios.
    select
        account,
        campaign,
        min(first_message_at)                                                       as first_message_at,
        max(last_message_at)                                                        as last_message_at,
        min(first_click_at)                                                         as first_click_at,
        max(last_click_at)                                                          as last_click_at,
        sum(messages_sent)::bigint                                                  as messages_sent,
        sum(messages_delivered)::bigint                                             as messages_delivered,
        sum(segments)::bigint                                                       as segments,
        sum(cost_usd)                                                               as cost_usd,
        count(phone) filter (where is_delivered_recipient)                          as delivered_recipients,
        sum(clicks)::numeric                                                        as clicks,
        case when count(clicks) > 0 then count(phone) filter (where clicks > 0) end as unique_clickers,
        case when count(clicks) > 0 then count(phone) filter (where is_converted) end as converted_clickers,
        sum(callbacks)::bigint                                                      as callbacks,
        nullif(sum(clicked_messages), 0)::bigint                                    as clicked_messages
    from phones
    {%- if is_incremental() %}
    where (account, campaign) in (select account, campaign from live_campaigns)
    {%- endif %}
    group by 1, 2
)

select
    account,
    campaign,
    t.first_message_at,
    t.last_message_at,
    t.first_click_at,
    t.last_click_at,
    {{ campaign_funnel_columns(m='t', c='t') }},
    {{ ratio('t.unique_clickers', 't.messages_delivered', 4) }} as click_through_rate,
    coalesce(t.delivered_recipients, 0)                                      as delivered_recipients,
    coalesce(t.clicked_messages, 0)                                          as clicked_messages,
    {{ ratio('t.clicked_messages', 't.messages_delivered', 4) }} as attributed_ctr_per_message,
    {{ ratio('t.unique_clickers', 't.delivered_recipients', 4) }} as ctr_per_recipient,
    {{ ratio('t.converted_clickers', 't.unique_clickers', 4) }} as conversion_rate,
    round(t.cost_usd / nullif(t.unique_clickers, 0), 6)                      as cost_per_unique_clicker_usd,
    round(t.cost_usd / nullif(t.converted_clickers, 0), 6)                   as cost_per_converted_clicker_usd
from campaigns as t
