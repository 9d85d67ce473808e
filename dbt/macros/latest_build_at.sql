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

{#- The earliest `date_column` among the rows of `relation`'s latest build, as a date literal (run at
    execution, so a query comparing from that day reads it by the date index): every day after a
    `--full-refresh`, the re-built window after an incremental build. 1970-01-01 when the table is
    empty or at parse time. -#}
{% macro latest_build_first_day(relation, date_column) -%}
    {%- set first_day = '1970-01-01' -%}
    {%- if execute -%}
        {#- The latest build's rows by the built_at index (offset 0 keeps the subquery apart), then
            their earliest day. Asked as min(date) directly, the planner may walk the date index
            from the oldest day, checking built_at, through every older row: 735 ms instead of
            21 ms on 1.9M legs partitioned by month. -#}
        {%- set query -%}
            select coalesce(min({{ date_column }}), '1970-01-01'::date)::text
            from (
                select {{ date_column }} from {{ relation }}
                where built_at = {{ latest_build_at(relation) }}
                offset 0
            ) as latest_build
        {%- endset -%}
        {%- set first_day = run_query(query).columns[0].values()[0] -%}
    {%- endif -%}
    '{{ first_day }}'::date
{%- endmacro %}
