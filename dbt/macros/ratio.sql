{#- The one form of a ratio column (issue 35): numerator / denominator as numeric with a stated
    scale (var ratio_scale, default 6 decimals; the campaign rates keep their 4), NULL when the
    denominator is 0 or NULL, never a float. BI re-aggregates from the numerator and denominator
    columns stored beside it. -#}
{% macro ratio(numerator, denominator, scale=none) -%}
    {%- set digits = scale if scale is not none else var('ratio_scale', 6) -%}
    (({{ numerator }})::numeric / nullif({{ denominator }}, 0))::numeric(30, {{ digits }})
{%- endmacro %}
