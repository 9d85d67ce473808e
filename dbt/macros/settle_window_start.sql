{#- The first UTC day an incremental call report re-builds: the latest day the report already holds
    (from its rows where `filter` holds) minus var settle_days. The report was built from fct_calls
    when fct_calls ended on that same day, and a fct_calls build re-processes at most the days from
    (its latest built day − settle_days): so every day fct_calls re-processed since the report's
    last build is at or after this one, even when fct_calls was built alone in between. `days`
    overrides settle_days for a model whose days stay open longer (rpt_usage_daily). With no such
    rows: 1970-01-01 (re-build everything), or null when `null_when_empty` (for a least() over
    several sources, which skips nulls). 1970-01-01 too when the built relation lacks one of the
    `requires` columns (a column added since: every day is re-built once to fill it in). -#}
{% macro settle_window_start(relation, date_column='call_date', filter='true', days=none, null_when_empty=false, requires=[]) -%}
    {%- if requires and execute and model.resource_type != 'unit_test' -%}
        {%- set built = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
        {%- if requires | reject('in', built) | list | length > 0 -%}
            {{- return("'1970-01-01'::date") -}}
        {%- endif -%}
    {%- endif -%}
    {%- set latest = 'max(' ~ date_column ~ ')' if null_when_empty else 'coalesce(max(' ~ date_column ~ "), '1970-01-01'::date)" -%}
    {%- set query -%}
        select {{ latest }} - {{ days if days is not none else var('settle_days', 3) }}
        from {{ relation }}
        where {{ filter }}
    {%- endset -%}
    {{- date_literal(query) -}}
{%- endmacro %}

{#- The date `query` returns, as a literal at execution (the planner then reads a window by its
    date index; a subquery is planned as if it matched a third of the table), null::date when it
    returns null; the subquery itself while parsing or in a unit test. -#}
{% macro date_literal(query) -%}
    {%- if execute and model.resource_type != 'unit_test' -%}
        {%- set value = run_query(query).columns[0].values()[0] -%}
        {{- return("null::date" if value is none else "'" ~ value ~ "'::date") -}}
    {%- else -%}
        {{- return('(' ~ query ~ ')') -}}
    {%- endif -%}
{%- endmacro %}
