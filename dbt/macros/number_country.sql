{#- The country of a phone number: the longest prefix of its digits (any +, spaces or punctuation
    dropped) in seed numbering_plan_prefixes (libphonenumber's plan: NANP by area code, every other
    country by calling code). A scalar subquery: at most 8 probes of the seed's unique prefix index
    per row. `field` is the seed column returned (country_iso2, country_name, calling_code, or
    prefix); null when nothing matches (no digits, an unknown code). -#}
{% macro number_country(column, field='country_iso2') -%}
    (
        select p.{{ field }}
        from (select regexp_replace({{ column }}, '\D', '', 'g') as digits) as n
        join {{ ref('numbering_plan_prefixes') }} as p
            on p.prefix in (
                {%- for k in range(1, 9) %}left(n.digits, {{ k }}){{ ', ' if not loop.last }}{% endfor -%}
            )
        where n.digits <> ''
        order by length(p.prefix) desc
        limit 1
    )
{%- endmacro %}
