{#- Write–audit–publish (README, "How a nightly run works", step 8). `telecom-etl transform` sets
    DBT_MARTS_BUILD_SCHEMA (analytics_marts__build): the marts are built and tested there, where BI
    cannot see them, and the CLI moves them into the published schema in one transaction only when
    dbt passed (src/transform/publish-marts.ts). Unset (dbt run by hand), marts are built in place. -#}

{#- The schema BI reads: <target schema>_marts. -#}
{% macro published_marts_schema() -%}
    {{- return(target.schema ~ '_marts') -}}
{%- endmacro %}

{#- The schema this invocation builds the marts in, or none when it builds them in place. -#}
{% macro marts_build_schema() -%}
    {%- set name = env_var('DBT_MARTS_BUILD_SCHEMA', '') | trim -%}
    {{- return(name if name != '' else none) -}}
{%- endmacro %}

{#- `ref` of a mart this invocation does not build (outside its --select) reads the published mart:
    the build schema holds only the marts this invocation builds (and the incremental ones it
    copied). Anything else resolves as dbt resolves it. -#}
{% macro ref() -%}
    {%- set relation = builtins.ref(*varargs, **kwargs) -%}
    {{- return(published_unless_built(relation)) -}}
{%- endmacro %}

{% macro published_unless_built(relation) -%}
    {%- set build_schema = marts_build_schema() -%}
    {%- if execute and build_schema is not none and relation is not string and relation.schema == build_schema
          and adapter.get_relation(relation.database, relation.schema, relation.identifier) is none -%}
        {{- return(relation.incorporate(path={'schema': published_marts_schema()})) -}}
    {%- endif -%}
    {{- return(relation) -}}
{%- endmacro %}

{#- on-run-start: an incremental mart continues from the published one. Before the build, every
    selected incremental mart the build schema lacks is copied there from the published schema
    (columns, comments, rows, then its indexes, then ANALYZE), and dbt's relation cache is told, so
    is_incremental() holds and the model re-builds only its settle window, as it would in place.
    A --full-refresh needs no copy. -#}
{% macro copy_published_incremental_marts() -%}
    {%- set build_schema = marts_build_schema() -%}
    {%- if execute and build_schema is not none and not flags.FULL_REFRESH -%}
        {%- set copied = namespace(any=false) -%}
        {%- for node in graph.nodes.values()
              if node.resource_type == 'model' and node.config.materialized == 'incremental'
                 and node.schema == build_schema and node.unique_id in selected_resources -%}
            {%- set published = adapter.get_relation(node.database, published_marts_schema(), node.alias) -%}
            {%- set built = adapter.get_relation(node.database, build_schema, node.alias) -%}
            {%- if published is not none and published.type == 'table' and built is none -%}
                {%- set copy = api.Relation.create(database=node.database, schema=build_schema,
                                                   identifier=node.alias, type='table') -%}
                {%- call statement('copy_published_' ~ node.name) -%}
                    create table {{ copy }} (like {{ published }} including all excluding indexes);
                    insert into {{ copy }} select * from {{ published }};
                    do $copy$
                    declare
                        index_sql text;
                    begin
                        for index_sql in
                            select replace(pg_get_indexdef(indexrelid), ' ON ' || indrelid::regclass::text || ' ',
                                           ' ON {{ build_schema }}.{{ node.alias }} ')
                            from pg_index
                            where indrelid = '{{ published_marts_schema() }}.{{ node.alias }}'::regclass
                        loop
                            execute index_sql;
                        end loop;
                    end
                    $copy$;
                    analyze {{ copy }};
                {%- endcall -%}
                {%- do adapter.cache_added(copy) -%}
                {%- set copied.any = true -%}
            {%- endif -%}
        {%- endfor -%}
        {#- Only a copy opened a transaction (a selection without incremental marts has none to commit). -#}
        {%- if copied.any -%}{%- do adapter.commit() -%}{%- endif -%}
    {%- endif -%}
{%- endmacro %}
