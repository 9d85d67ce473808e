{#- The measures of a daily message report over fct_messages rows: rpt_messages_daily (UTC days) and
    rpt_messages_daily_local (account-local days) count the same things. -#}
{% macro message_measures() -%}
    count(*)::integer                                              as messages,
    count(*) filter (where is_delivered)::integer                  as delivered_messages,
    {{ ratio('count(*) filter (where is_delivered)', 'count(*)', 4) }} as all_messages_delivery_rate,
    sum(segments)::integer                                         as segments,
    sum(charge_usd)                                                as charge_usd,
    sum(coalesce(carrier_fees_usd, 0))                             as carrier_fees_usd,
    sum(cost_usd)                                                  as cost_usd,
    count(*) filter (where is_carrier_fees_missing)::integer       as carrier_fees_missing_messages
{%- endmacro %}
