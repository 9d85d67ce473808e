{#- The newest built_at of `relation` as a timestamptz literal (run at execution, so the planner
    sees the value and reads those rows by the built_at index; a subquery in its place is planned
    as if it matched a third of the table). Null literal when the table is empty or at parse time. -#}
{% macro latest_build_at(relation) -%}
    {%- set latest = none -%}
    {%- if execute -%}
        {%- set latest = run_query('select max(built_at)::text from ' ~ relation).columns[0].values()[0] -%}
    {%- endif -%}
    {%- if latest is none -%}null::timestamptz{%- else -%}'{{ latest }}'::timestamptz{%- endif -%}
{%- endmacro %}
