-- One row per account × campaign over the campaign's whole life. unique_clickers is the distinct
-- count of clicking phones over every click of the campaign (not a sum of daily counts); CTR is
-- unique clickers / delivered messages; conversion rate is converted clickers / unique clickers.
-- CTR per message = messages with an attributed click (fct_link_clicks.attributed_message_id) /
-- delivered messages; CTR per recipient = unique clickers / distinct delivered recipients.
--
-- Incremental (delete+insert by account × campaign): a build re-builds, over its whole life, each
-- campaign with a message or a click in the facts' windows: from the earlier of (latest day of a
-- message here − var settle_days) and (latest day of a click here − settle_days), what
-- fct_campaign_messages and fct_link_clicks re-processed since this report's last build (macro
-- settle_window_start). A campaign without activity in those days keeps its row: its totals
-- cannot have changed. The campaigns' rows are read by the facts' (account, campaign) indexes, so
-- a nightly build reads the live campaigns, not every message ever sent. `--full-refresh`
-- rebuilds every campaign.
{{
    config(
        materialized='incremental',
        unique_key=['account', 'campaign'],
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
    )
}}
{%- if is_incremental() %}
{%- set window_start -%}
    coalesce(least({{ settle_window_start(this, "(last_message_at at time zone 'UTC')::date", null_when_empty=true) }},
                   {{ settle_window_start(this, "(last_click_at at time zone 'UTC')::date", null_when_empty=true) }}),
             '1970-01-01'::date)
{%- endset %}
{%- endif %}
with
{%- if is_incremental() %}
live_campaigns as (
    select account, campaign from {{ ref('fct_campaign_messages') }} where submitted_date >= {{ window_start }}
    union
    select account, campaign from {{ ref('fct_link_clicks') }} where click_date >= {{ window_start }}
),
{%- endif %}

campaign_messages as (
    select *
    from {{ ref('fct_campaign_messages') }}
    {%- if is_incremental() %}
    where (account, campaign) in (select account, campaign from live_campaigns)
    {%- endif %}
),

campaign_clicks as (
    select *
    from {{ ref('fct_link_clicks') }}
    {%- if is_incremental() %}
    where (account, campaign) in (select account, campaign from live_campaigns)
    {%- endif %}
),

messages as (
    select
        account,
        campaign,
        min(submitted_at)   as first_message_at,
        max(submitted_at)   as last_message_at,
        count(distinct recipient_phone) filter (where is_delivered) as delivered_recipients,
        {{ campaign_message_aggregates() }}
    from campaign_messages
    group by 1, 2
),

clicks as (
    {{ campaign_click_aggregates(['account', 'campaign'], first_last=true, clicks='campaign_clicks') | indent(4) }}
),

clicked_messages as (
    -- Campaign messages with at least one click attributed to them.
    select account, campaign, count(distinct attributed_message_id) as clicked_messages
    from campaign_clicks
    where is_attributed
    group by 1, 2
)

select
    account,
    campaign,
    m.first_message_at,
    m.last_message_at,
    c.first_click_at,
    c.last_click_at,
    {{ campaign_funnel_columns() }},
    round(c.unique_clickers::numeric / nullif(m.messages_delivered, 0), 4)  as click_through_rate,
    coalesce(m.delivered_recipients, 0)                                     as delivered_recipients,
    coalesce(k.clicked_messages, 0)                                         as clicked_messages,
    round(k.clicked_messages::numeric / nullif(m.messages_delivered, 0), 4) as ctr_per_message,
    round(c.unique_clickers::numeric / nullif(m.delivered_recipients, 0), 4) as ctr_per_recipient,
    round(c.converted_clickers::numeric / nullif(c.unique_clickers, 0), 4)  as conversion_rate,
    round(m.cost_usd / nullif(c.unique_clickers, 0), 6)                     as cost_per_unique_clicker_usd,
    round(m.cost_usd / nullif(c.converted_clickers, 0), 6)                  as cost_per_converted_clicker_usd
from messages as m
full outer join clicks as c using (account, campaign)
left join clicked_messages as k using (account, campaign)
