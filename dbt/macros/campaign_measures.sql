{#- The campaign funnel's measures, shared by rpt_campaign_daily and rpt_campaign_totals so the
    daily and whole-life reports count the same things; only their grain differs. -#}

{#- Aggregates of fct_campaign_messages rows. -#}
{% macro campaign_message_aggregates() -%}
    count(*)                                as messages_sent,
    count(*) filter (where is_delivered)    as messages_delivered,
    sum(segments)                           as segments,
    sum(cost_usd)                           as cost_usd
{%- endmacro %}

{#- Aggregates of fct_link_clicks rows: clicks and distinct clicker phones at the query's grain. -#}
{% macro campaign_click_aggregates() -%}
    count(*)                                                    as clicks,
    count(distinct clicker_phone)                               as unique_clickers,
    count(distinct clicker_phone) filter (where is_converted)   as converted_clickers
{%- endmacro %}

{#- The report columns from the message aggregates `m` and click aggregates `c` (full-outer joined). -#}
{% macro campaign_funnel_columns(m='m', c='c') -%}
    coalesce({{ m }}.messages_sent, 0)                                             as messages_sent,
    coalesce({{ m }}.messages_delivered, 0)                                        as messages_delivered,
    round({{ m }}.messages_delivered::numeric / nullif({{ m }}.messages_sent, 0), 4) as delivery_rate,
    coalesce({{ m }}.segments, 0)                                                  as segments,
    coalesce({{ m }}.cost_usd, 0)                                                  as cost_usd,
    coalesce({{ c }}.clicks, 0)                                                    as clicks,
    coalesce({{ c }}.unique_clickers, 0)                                           as unique_clickers,
    coalesce({{ c }}.converted_clickers, 0)                                        as converted_clickers
{%- endmacro %}
