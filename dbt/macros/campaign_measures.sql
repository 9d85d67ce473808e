{#- The campaign funnel's measures, shared by rpt_campaign_daily and rpt_campaign_totals so the
    daily and whole-life reports count the same things; only their grain differs. -#}

{#- Aggregates of fct_campaign_messages rows. -#}
{% macro campaign_message_aggregates() -%}
    count(*)                                as messages_sent,
    count(*) filter (where is_delivered)    as messages_delivered,
    sum(segments)                           as segments,
    sum(cost_usd)                           as cost_usd
{%- endmacro %}

{#- Clicks, distinct clickers and converted clickers at `grain` (a list of columns) of the clicks
    in `clicks` (default fct_link_clicks; any relation or CTE with the grain's columns,
    clicker_phone and is_converted), optionally only rows where `where` holds; `first_last` adds
    the first and last click (from clicked_at). Counted in two hash aggregations (per clicker, then
    per grain) instead of count(distinct), which sorts every click by its text keys. A click
    without a phone is a click, not a clicker. -#}
{% macro campaign_click_aggregates(grain, where='true', first_last=false, clicks=none) -%}
    select
        {{ grain | join(', ') }},
        {%- if first_last %}
        min(first_click_at)                                 as first_click_at,
        max(last_click_at)                                  as last_click_at,
        {%- endif %}
        sum(clicks)                                         as clicks,
        count(clicker_phone)                                as unique_clickers,
        count(clicker_phone) filter (where is_converted)    as converted_clickers
    from (
        select
            {{ grain | join(', ') }},
            clicker_phone,
            {%- if first_last %}
            min(clicked_at)     as first_click_at,
            max(clicked_at)     as last_click_at,
            {%- endif %}
            count(*)            as clicks,
            bool_or(is_converted) as is_converted
        from {{ clicks if clicks is not none else ref('fct_link_clicks') }}
        where {{ where }}
        group by {{ grain | join(', ') }}, clicker_phone
    ) as per_clicker
    group by {{ grain | join(', ') }}
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
