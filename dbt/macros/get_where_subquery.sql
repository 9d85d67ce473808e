{#- A data test's `where` config may say `__latest_build__`: the test then checks only the rows the
    model's latest build wrote (their `built_at` is the newest), that is every row after a
    `--full-refresh` and the new or changed rows of the settle window after an incremental build. Rows outside it
    were tested by the build that wrote them and have not changed since. Any other `where` is used
    as written (dbt's default behaviour). -#}
{% macro get_where_subquery(relation) -%}
    {%- set where = config.get('where') -%}
    {%- if where -%}
        {%- if '__latest_build__' in where -%}
            {%- set where = where | replace('__latest_build__', 'built_at = ' ~ latest_build_at(relation)) -%}
        {%- endif -%}
        {%- set filtered -%}
            (select * from {{ relation }} where {{ where }}) dbt_subquery
        {%- endset -%}
        {%- do return(filtered) -%}
    {%- else -%}
        {%- do return(relation) -%}
    {%- endif -%}
{%- endmacro %}
