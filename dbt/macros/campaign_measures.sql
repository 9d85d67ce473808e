{#- The campaign funnel's measures of rpt_campaign_daily; rpt_campaign_totals counts the same
    things over whole lives from settled state (macros campaign_settled_state) and shares the
    report columns (campaign_funnel_columns). -#}

{#- Aggregates of fct_campaign_messages rows. -#}
{% macro campaign_message_aggregates() -%}
    count(*)                                as messages_sent,
    count(*) filter (where is_delivered)    as messages_delivered,
    sum(segments)                           as segments,
    sum(cost_usd)                           as cost_usd
{%- endmacro %}

{#- Clicks, distinct clickers, converted clickers and callbacks at `grain` (a list of columns) of
    fct_link_clicks, optionally only rows where `where` holds. Counted in two hash aggregations
    (per clicker, then per grain) instead of count(distinct), which sorts every click by its text
    keys). A click without a phone is a click, not a clicker. A clicker is converted where the click
    holding its first callback is (is_first_conversion: once per account, so the count adds up).
    `relation`: fct_link_clicks, or a CTE of its rows with more columns (rpt_campaign_daily_local's
    local click day). -#}
{% macro campaign_click_aggregates(grain, where='true', relation=none) -%}
    select
        {{ grain | join(', ') }},
        sum(clicks)                                         as clicks,
        count(clicker_phone)                                as unique_clickers,
        count(clicker_phone) filter (where is_converted)    as converted_clickers,
        sum(callbacks)                                      as callbacks
    from (
        select
            {{ grain | join(', ') }},
            clicker_phone,
            count(*)                    as clicks,
            bool_or(is_first_conversion) as is_converted,
            sum(callbacks)              as callbacks
        from {{ relation if relation is not none else ref('fct_link_clicks') }}
        where {{ where }}
        group by {{ grain | join(', ') }}, clicker_phone
    ) as per_clicker
    group by {{ grain | join(', ') }}
{%- endmacro %}

{#- The report columns from the message aggregates `m` and click aggregates `c` (full-outer joined),
    with the callback rule and window they were counted by (vars callback_attribution,
    click_to_call_window_hours). -#}
{% macro campaign_funnel_columns(m='m', c='c') -%}
    coalesce({{ m }}.messages_sent, 0)                                             as messages_sent,
    coalesce({{ m }}.messages_delivered, 0)                                        as messages_delivered,
    {{ ratio(m ~ '.messages_delivered', m ~ '.messages_sent', 4) }} as delivery_rate,
    coalesce({{ m }}.segments, 0)                                                  as segments,
    coalesce({{ m }}.cost_usd, 0)                                                  as cost_usd,
    coalesce({{ c }}.clicks, 0)                                                    as clicks,
    coalesce({{ c }}.unique_clickers, 0)                                           as unique_clickers,
    coalesce({{ c }}.converted_clickers, 0)                                        as converted_clickers,
    coalesce({{ c }}.callbacks, 0)::bigint                                         as callbacks,
    '{{ callback_attribution_rule() }}'::text                                      as callback_attribution_rule,
    {{ var('click_to_call_window_hours', 24) }}                                    as conversion_window_hours
{%- endmacro %}
