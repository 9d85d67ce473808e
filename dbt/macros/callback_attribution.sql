{#- Callback attribution (docs/bi-campaigns.md, "Callbacks"): a callback is an answered inbound call
    (fct_calls direction 'received') from a clicker's phone to the account, less than
    click_to_call_window_hours after one of that phone's clicks; it is credited to exactly one of
    those clicks, chosen by var callback_attribution. -#}

{#- The closed set of var callback_attribution's values. -#}
{% macro callback_attribution_rules() -%}
    {{ return(['last_click', 'first_click']) }}
{%- endmacro %}

{#- var callback_attribution (default last_click), refused at compile time unless one of
    callback_attribution_rules(). -#}
{% macro callback_attribution_rule() -%}
    {%- set rule = var('callback_attribution', 'last_click') -%}
    {%- if rule not in callback_attribution_rules() -%}
        {{ exceptions.raise_compiler_error("var callback_attribution is '" ~ rule ~ "': use one of " ~ callback_attribution_rules() | join(', ')) }}
    {%- endif -%}
    {{ return(rule) }}
{%- endmacro %}

{#- The callback window (var click_to_call_window_hours) in whole days, rounded up: a callback is at
    most this many days after the day of the click it is credited to. -#}
{% macro callback_window_days() -%}
    {{ return(whole_days(var('click_to_call_window_hours', 24))) }}
{%- endmacro %}

{#- The order of the candidate clicks `c` (clicked_at, click_date, click_ordinal) that puts the click
    a callback is credited to first: the latest before the call (last_click) or the earliest
    within the window (first_click); ties by the click's key, the same way. -#}
{% macro callback_credit_order(c='c') -%}
    {%- set direction = 'desc' if callback_attribution_rule() == 'last_click' else 'asc' -%}
    {{ c }}.clicked_at {{ direction }}, {{ c }}.click_date {{ direction }}, {{ c }}.click_ordinal {{ direction }}
{%- endmacro %}
