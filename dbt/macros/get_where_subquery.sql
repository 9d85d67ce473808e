{#- A data test's `where` config may say:
    - `__latest_build__`: the test then checks only the rows the model's latest build wrote (their
      `built_at` is the newest), that is every row after a `--full-refresh` and the new or changed
      rows of the settle window after an incremental build. Rows outside it were tested by the
      build that wrote them and have not changed since.
    - `__latest_fold__`: the test checks only the rows a campaign state's latest fold wrote (their
      `settled_before` is the state's boundary, macro settled_before); the other rows were tested
      by the fold that wrote them and have not changed since.
    - `__window_of:<fact>:<date column>__`: the first day (a date literal) the incremental mart
      <fact> re-builds in this invocation (macro settle_window_start on its table as this build
      starts from it), 1970-01-01 on a `--full-refresh` or before its first build. A test of a
      staging view then checks the landed rows its fact reads tonight, not every row ever landed
      (older days were read, and tested, by the builds before; a nightly does not read them again).
    Any other `where` is used as written (dbt's default behaviour). -#}
{% macro get_where_subquery(relation) -%}
    {%- set where = config.get('where') -%}
    {%- if where -%}
        {%- if '__latest_build__' in where -%}
            {%- set where = where | replace('__latest_build__', 'built_at = ' ~ latest_build_at(relation)) -%}
        {%- endif -%}
        {%- if '__latest_fold__' in where -%}
            {%- set where = where | replace('__latest_fold__', 'settled_before = ' ~ settled_before(relation)) -%}
        {%- endif -%}
        {%- if '__window_of:' in where -%}
            {%- set spec = where.split('__window_of:')[1].split('__')[0] -%}
            {%- set fact, date_column = spec.split(':') -%}
            {%- set where = where | replace('__window_of:' ~ spec ~ '__', fact_window_start(fact, date_column)) -%}
        {%- endif -%}
        {%- set filtered -%}
            (select * from {{ relation }} where {{ where }}) dbt_subquery
        {%- endset -%}
        {%- do return(filtered) -%}
    {%- else -%}
        {%- do return(relation) -%}
    {%- endif -%}
{%- endmacro %}

{#- The first day incremental mart `fact` re-builds in this invocation, as a date literal: its
    settle window's start on the table it starts from (the build schema's copy, else the published
    mart), 1970-01-01 on a `--full-refresh`, while parsing, or when the mart does not exist yet. -#}
{% macro fact_window_start(fact, date_column) -%}
    {%- if not execute or flags.FULL_REFRESH -%}{{- return("'1970-01-01'::date") -}}{%- endif -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.name == fact -%}
        {%- set found = adapter.get_relation(node.database, node.schema, node.alias) -%}
        {%- if found is none -%}
            {%- set found = adapter.get_relation(node.database, published_marts_schema(), node.alias) -%}
        {%- endif -%}
        {%- if found is not none -%}{{- return(settle_window_start(found, date_column)) -}}{%- endif -%}
    {%- endfor -%}
    {{- return("'1970-01-01'::date") -}}
{%- endmacro %}
