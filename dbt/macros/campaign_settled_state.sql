{#- Whole-life campaign reports (rpt_campaign_totals, rpt_campaign_click_mix) from settled state.
    A campaign's distinct recipients and clickers cannot be summed from days, and re-reading every
    message and click of a campaign that never ends makes the nightly grow with the history. So
    the days that can no longer change are folded, night by night, into per-phone state
    (int_campaign_phones_settled, int_campaign_click_values_settled), and a report reads that state
    plus the facts' rows from its boundary on (by their date indexes): bounded by the campaigns'
    distinct phones and the window, not by the messages ever sent. -#}

{#- The boundary the campaign state is folded up to (exclusive), as a date literal: the days before
    it are final in fct_campaign_messages and fct_link_clicks (each re-builds at most from its
    latest day − var settle_days), and so is every click attributed to their messages (a click
    comes at most click_attribution_window_hours after its message). 1970-01-01 when there are
    no facts. In a unit test, the query. -#}
{% macro campaign_settle_boundary() -%}
    {%- set query -%}
        select coalesce(least((select max(submitted_date) from {{ ref('fct_campaign_messages') }}),
                              (select max(click_date) from {{ ref('fct_link_clicks') }}))
                        - {{ var('settle_days', 3) }} - {{ click_attribution_days() }} - 1,
                        '1970-01-01'::date)
    {%- endset -%}
    {{ return(date_literal(query)) }}
{%- endmacro %}

{#- The attribution window (var click_attribution_window_hours) in whole days, rounded up: a click
    is at most this many days after the day of the message it is attributed to. -#}
{% macro click_attribution_days() -%}
    {{ return(whole_days(var('click_attribution_window_hours', 168))) }}
{%- endmacro %}

{#- The boundary `relation` (a campaign state model) was folded up to: the latest settled_before of
    its rows, 1970-01-01 when it has none (nothing folded: the reports read every day). -#}
{% macro settled_before(relation) -%}
    {{ return(date_literal("select coalesce(max(settled_before), '1970-01-01'::date) from " ~ relation)) }}
{%- endmacro %}

{#- Whether campaign state `relation` has `column` (true while parsing): a state built before it
    was folded differently and is folded again from every settled day. -#}
{% macro state_has_column(relation, column) -%}
    {{- return(not execute or column in (adapter.get_columns_in_relation(relation) | map(attribute='name') | list)) -}}
{%- endmacro %}

{#- A pre_hook of a campaign state keyed by grain_key: on an incremental build of a state built
    before `column` (keyed otherwise, so delete+insert by grain_key would keep its rows beside the
    re-folded ones), empty it; nothing otherwise. -#}
{% macro empty_state_without(relation, column) -%}
    {%- if is_incremental() and not state_has_column(relation, column) -%}
        truncate {{ relation }}
    {%- endif -%}
{%- endmacro %}

{#- Per account × campaign × phone (recipient or clicker digits, null for a click without one):
    the campaign measures of the messages where `messages_where` holds, the clicks where
    `clicks_where` holds, and the distinct messages with an attributed click among the clicks where
    `attributed_where` holds. Rows to be rolled up by campaign_phone_rollup: a phone has up to
    three (messages, clicks, attributed messages). is_converted: the phone's first callback was
    credited to a click of the campaign (fct_link_clicks.is_first_conversion); callbacks: those
    credited to its clicks of the campaign. -#}
{% macro campaign_phone_rows(messages_where, clicks_where, attributed_where) -%}
    select
        account, campaign, recipient_phone as phone,
        min(submitted_at)                       as first_message_at,
        max(submitted_at)                       as last_message_at,
        count(*)                                as messages_sent,
        count(*) filter (where is_delivered)    as messages_delivered,
        sum(segments)                           as segments,
        sum(cost_usd)                           as cost_usd,
        bool_or(is_delivered)                   as is_delivered_recipient,
        null::timestamptz                       as first_click_at,
        null::timestamptz                       as last_click_at,
        null::bigint                            as clicks,
        null::boolean                           as is_converted,
        null::bigint                            as clicked_messages,
        null::bigint                            as callbacks
    from {{ ref('fct_campaign_messages') }}
    where {{ messages_where }}
    group by 1, 2, 3
    union all
    select
        account, campaign, clicker_phone,
        null, null, null, null, null, null, null,
        min(clicked_at), max(clicked_at), count(*), bool_or(is_first_conversion), null, sum(callbacks)
    from {{ ref('fct_link_clicks') }}
    where {{ clicks_where }}
    group by 1, 2, 3
    union all
    select
        account, campaign, clicker_phone,
        null, null, null, null, null, null, null, null, null, null, null,
        count(distinct attributed_message_id), null
    from {{ ref('fct_link_clicks') }}
    where is_attributed and {{ attributed_where }}
    group by 1, 2, 3
{%- endmacro %}

{#- campaign_phone_rows (or state rows with the same columns) in `rows`, rolled up to one row per
    account × campaign × phone. -#}
{% macro campaign_phone_rollup(rows) -%}
    select
        account, campaign, phone,
        min(first_message_at)           as first_message_at,
        max(last_message_at)            as last_message_at,
        sum(messages_sent)::bigint      as messages_sent,
        sum(messages_delivered)::bigint as messages_delivered,
        sum(segments)::bigint           as segments,
        sum(cost_usd)                   as cost_usd,
        bool_or(is_delivered_recipient) as is_delivered_recipient,
        min(first_click_at)             as first_click_at,
        max(last_click_at)              as last_click_at,
        sum(clicks)::bigint             as clicks,
        bool_or(is_converted)           as is_converted,
        sum(clicked_messages)::bigint   as clicked_messages,
        sum(callbacks)::bigint          as callbacks
    from {{ rows }}
    group by 1, 2, 3
{%- endmacro %}

{#- Per account × campaign × clicker phone × dimension (operating_system, browser, language) ×
    value: the clicks where `clicks_where` holds, and the row's key (click_value_key: the hash of
    those five, as int_campaign_click_values_settled stores it in grain_key). -#}
{% macro campaign_click_value_rows(clicks_where) -%}
    {%- for dimension in ['operating_system', 'browser', 'language'] %}
    select account, campaign, clicker_phone as phone, '{{ dimension }}' as dimension, {{ dimension }} as value,
           count(*) as clicks,
           {{ grain_hash(['account', 'campaign', 'clicker_phone', "'" ~ dimension ~ "'::text", dimension]) }} as click_value_key
    from {{ ref('fct_link_clicks') }}
    where {{ clicks_where }}
    group by 1, 2, 3, 4, 5
    {{- '\n    union all' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
