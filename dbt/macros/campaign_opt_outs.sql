{#- Per account × campaign × sender: the campaign messages submitted, and the opt-outs made, on the
    UTC days from `from_date` (a date literal) up to `until_date` (exclusive; none: every later
    day), as rpt_campaign_opt_outs and its settled state (int_campaign_senders_settled) count them.
    An opt-out (stg_platform__message_opt_outs) is attributed to the latest campaign message sent to
    its number (fct_campaign_messages.recipient_phone) at or before it and less than
    `opt_out_attribution_window_hours` (dbt var, default 168 = 7 days) before it, from its sender
    (`sender_id`), or from any sender when it opted out of every sender (`sender_id` null, counted
    in all_sender_opt_outs as well); the row's sender is then the message's. An opt-out without
    such a message keeps its own sender (null: of every sender) under a null campaign. The
    messages an opt-out can be attributed to are read by their date index: from the window's days
    before `from_date` on, not every message ever sent. Rows to be summed by the caller (a grain
    has up to two: messages, opt-outs). -#}
{% macro campaign_sender_rows(from_date, until_date=none) -%}
    {%- set attribution_hours = var('opt_out_attribution_window_hours', 168) %}
    {%- set reach_days = whole_days(attribution_hours) + 1 %}
    {%- set until = '' if until_date is none else ' and {column} < ' ~ until_date %}
    with opt_outs as (
        select
            account,
            created_date,
            row_ordinal,
            created_at                            as opted_out_at,
            {{ phone_digits('phone_number') }}    as phone,
            sender_id
        from {{ ref('stg_platform__message_opt_outs') }}
        where created_date >= {{ from_date }}{{ until | replace('{column}', 'created_date') }}
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
        where m.submitted_date >= {{ from_date }} - {{ reach_days }}{{ until | replace('{column}', 'm.submitted_date') }}
        order by o.account, o.created_date, o.row_ordinal, m.submitted_at desc, m.message_id desc
    )

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
    union all
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
    where submitted_date >= {{ from_date }}{{ until | replace('{column}', 'submitted_date') }}
    group by 1, 2, 3
{%- endmacro %}

{#- The sums of campaign_sender_rows' columns over `rows` (a relation or subquery alias with them),
    per account × campaign × sender. -#}
{% macro campaign_sender_sums(rows) -%}
    select
        account,
        campaign,
        sender,
        sum(messages_sent)::bigint                       as messages_sent,
        sum(messages_delivered)::bigint                  as messages_delivered,
        sum(opt_outs)::bigint                            as opt_outs,
        sum(all_sender_opt_outs)::bigint                 as all_sender_opt_outs,
        min(first_opt_out_at)                            as first_opt_out_at,
        max(last_opt_out_at)                             as last_opt_out_at
    from {{ rows }}
    group by 1, 2, 3
{%- endmacro %}
