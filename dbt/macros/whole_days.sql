{#- A window of `hours` in whole days, rounded up: an event at most that many hours after another
    is at most this many UTC days after its day (the attribution windows' reach). -#}
{% macro whole_days(hours) -%}
    {{ return((hours / 24) | round(0, 'ceil') | int) }}
{%- endmacro %}
