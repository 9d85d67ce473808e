{#- The country of a phone number by the numbering plan: the longest prefix of its digits in seed
    numbering_plan_prefixes (libphonenumber's plan: NANP by area code, every other country by
    calling code; prefixes have at most 8 digits, which the seed's tests check). Two halves:
    number_plan_joins(digits, alias) goes in the FROM clause (one left join per prefix length, each
    an equality, so Postgres hash-joins the seed once per length), and number_country(alias,
    field) in the select list picks the longest match's `field` (country_iso2, country_name,
    calling_code or prefix); null when nothing matches (no digits, an unknown code).
    `digits` must be digits only (macro phone_digits, or regexp_replace(x, '\D', '', 'g')).
    Measured on 1.3 million numbers: 14 s this way, 100 s as a correlated subquery per row. -#}
{% macro number_plan_joins(digits, alias='np') -%}
    {%- for k in range(8, 0, -1) %}
    left join {{ ref('numbering_plan_prefixes') }} as {{ alias }}{{ k }}
        on {{ alias }}{{ k }}.prefix = left({{ digits }}, {{ k }})
    {%- endfor %}
{%- endmacro %}

{% macro number_country(alias='np', field='country_iso2') -%}
    coalesce({% for k in range(8, 0, -1) %}{{ alias }}{{ k }}.{{ field }}{{ ', ' if not loop.last }}{% endfor %})
{%- endmacro %}
