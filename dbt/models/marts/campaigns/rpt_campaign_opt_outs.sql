-- Message opt-outs in the campaign funnel: one row per account × campaign × sender, the numbers
-- that asked for no more messages beside the messages the campaign sent from that sender. Opt-outs
-- per campaign are the sum over its senders, per sender the sum over campaigns; the opt-out rate
-- is sum(opt_outs) / sum(messages_delivered) at any grain (both stored, no ratio to average).
--
-- An opt-out (stg_platform__message_opt_outs) is attributed to the latest campaign message sent
-- to its number (fct_campaign_messages.recipient_phone) at or before it and less than
-- `opt_out_attribution_window_hours` (dbt var, default 168 = 7 days) before it, from its sender
-- (`sender_id`), or from any sender when it opted out of every sender (`sender_id` null, counted
-- in all_sender_opt_outs as well). The row's sender is then the message's. An opt-out without such
-- a message keeps its own sender (null: of every sender) under a null campaign, so the opt-outs
-- per sender stay complete; a campaign without opt-outs has its row with 0.
-- A table rebuilt whole each build: opt-outs are a few per hundred delivered messages.
{{ config(post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}]) }}
{%- set attribution_hours = var('opt_out_attribution_window_hours', 168) %}
with opt_outs as (
    select
        account,
        created_date,
        row_ordinal,
        created_at                            as opted_out_at,
        {{ phone_digits('phone_number') }}    as phone,
        sender_id
    from {{ ref('stg_platform__message_opt_outs') }}
),

attributions as (
    select distinct on (o.account, o.created_date, o.row_ordinal)
        o.account,
        o.created_date,
        o.row_ordinal,
        m.campaign,
        m.sender
    from opt_outs as o
    join {{ ref('fct_campaign_messages') }} as m
        on m.account = o.account
       and m.recipient_phone = o.phone
       and (o.sender_id is null or m.sender = o.sender_id)
       and m.submitted_at <= o.opted_out_at
       and m.submitted_at > o.opted_out_at - interval '1 hour' * {{ attribution_hours }}
    order by o.account, o.created_date, o.row_ordinal, m.submitted_at desc, m.message_id desc
),

opt_out_counts as (
    select
        o.account,
        a.campaign,
        coalesce(a.sender, o.sender_id)                  as sender,
        0::bigint                                        as messages_sent,
        0::bigint                                        as messages_delivered,
        count(*)                                         as opt_outs,
        count(*) filter (where o.sender_id is null)      as all_sender_opt_outs,
        min(o.opted_out_at)                              as first_opt_out_at,
        max(o.opted_out_at)                              as last_opt_out_at
    from opt_outs as o
    left join attributions as a
        on a.account = o.account
       and a.created_date = o.created_date
       and a.row_ordinal = o.row_ordinal
    group by 1, 2, 3
),

message_counts as (
    select
        account,
        campaign,
        sender,
        count(*)                                         as messages_sent,
        count(*) filter (where is_delivered)             as messages_delivered,
        0::bigint                                        as opt_outs,
        0::bigint                                        as all_sender_opt_outs,
        null::timestamptz                                as first_opt_out_at,
        null::timestamptz                                as last_opt_out_at
    from {{ ref('fct_campaign_messages') }}
    group by 1, 2, 3
),

both_sides as (
    select * from message_counts
    union all
    select * from opt_out_counts
)

select
    account,
    campaign,
    sender,
    sum(messages_sent)::bigint                           as messages_sent,
    sum(messages_delivered)::bigint                      as messages_delivered,
    sum(opt_outs)::bigint                                as opt_outs,
    sum(all_sender_opt_outs)::bigint                     as all_sender_opt_outs,
    min(first_opt_out_at)                                as first_opt_out_at,
    max(last_opt_out_at)                                 as last_opt_out_at,
    {{ grain_key(['account', 'campaign', 'sender']) }}
from both_sides
group by 1, 2, 3
