{#- A phone number reduced to its digits, so `+1 (212) 555-0100` and `12125550100` match. -#}
{% macro phone_digits(column) -%}
    nullif(regexp_replace({{ column }}, '[^0-9]', '', 'g'), '')
{%- endmacro %}
