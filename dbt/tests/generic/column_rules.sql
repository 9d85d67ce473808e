{#- A model's grain and column rules in one test: one row per broken rule, naming the column(s), the
    rule and how many rows (or duplicated keys) break it.
    - unique_combination: the model's grain; no combination of these columns may occur twice
      (nulls compare equal, as in GROUP BY).
    - not_null: columns that must never be null.
    - non_negative: columns that must never be below zero (nulls pass: list a required column under
      not_null too).
    - accepted_values: a mapping of enum columns to the values each may hold (nulls pass, as in
      dbt's accepted_values; the values are compared as text).
    It replaces a `unique_combination_of_columns` test and one `not_null`, `non_negative` or
    `accepted_values` test per column: the same checks, in one node and one scan for the column rules, which keeps a nightly
    build's fixed cost down (each dbt node costs tens of milliseconds of dbt's own time, whatever
    its data). -#}
{% test column_rules(model, unique_combination=[], not_null=[], non_negative=[], accepted_values={}) %}
{%- set rules = [] -%}
{%- for column in not_null -%}
    {%- do rules.append((column, 'not_null', adapter.quote(column) ~ ' is null')) -%}
{%- endfor -%}
{%- for column in non_negative -%}
    {%- do rules.append((column, 'non_negative', adapter.quote(column) ~ ' < 0')) -%}
{%- endfor -%}
{%- for column, values in accepted_values.items() -%}
    {%- set listed = [] -%}
    {%- for value in values -%}
        {%- do listed.append("'" ~ (value | string | replace("'", "''")) ~ "'") -%}
    {%- endfor -%}
    {%- do rules.append((column, 'accepted_values', adapter.quote(column) ~ '::text not in (' ~ listed | join(', ') ~ ')')) -%}
{%- endfor -%}
{%- set checks = [] -%}
{%- if rules -%}
    {%- set check -%}
select checked.column_name, checked.rule, checked.broken_rows
from (
    select
    {%- for column, rule, condition in rules %}
        count(*) filter (where {{ condition }}) as broken_{{ loop.index }}{{ "," if not loop.last }}
    {%- endfor %}
    from {{ model }}
) as broken
cross join lateral (values
{%- for column, rule, condition in rules %}
    ('{{ column }}', '{{ rule }}', broken_{{ loop.index }}){{ "," if not loop.last }}
{%- endfor %}
) as checked (column_name, rule, broken_rows)
where checked.broken_rows > 0
    {%- endset -%}
    {%- do checks.append(check) -%}
{%- endif -%}
{%- if unique_combination -%}
    {%- set check -%}
select '{{ unique_combination | join(", ") }}' as column_name, 'unique_combination' as rule, count(*) as broken_rows
from (
    select 1
    from {{ model }}
    group by {{ unique_combination | join(', ') }}
    having count(*) > 1
) as duplicated_keys
having count(*) > 0
    {%- endset -%}
    {%- do checks.append(check) -%}
{%- endif %}
{{ checks | join('\nunion all\n') }}
{% endtest %}
