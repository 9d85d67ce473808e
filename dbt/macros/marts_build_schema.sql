{#- Write–audit–publish (docs/explanation/how-a-night-works.md, "How a nightly run works", step 8). `telecom-etl transform` sets
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
    started from a kept or copied table). Anything else resolves as dbt resolves it. -#}
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
    selected incremental mart the build schema lacks is put there, so is_incremental() holds and the
    model re-builds only its settle window, as it would in place:
    - moved (with its partitions, macro move_table_with_partitions), when the latest publication kept its predecessor in <marts>__previous (the table it
      replaced; src/transform/publish-marts.ts): the model then catches up from yesterday's state
      of its own table, as after a missed night. Only when this build selects every mart the latest
      publication built (so every mart starts from the state before that publication, as if it had
      not happened), and the kept table's comment names that publication and the table now
      published (not rebuilt since, by a --full-refresh or a dbt run by hand in place);
    - otherwise copied from the published schema (columns, comments, partitions, rows, then its indexes and
      its primary key constraint (macro primary_key), then ANALYZE): the first build, the one after a failed build (which dropped its build schema with
      the kept table it had taken), after a --full-refresh or a --select build.
    dbt's relation cache is told either way. A --full-refresh needs neither. -#}
{% macro copy_published_incremental_marts() -%}
    {%- set build_schema = marts_build_schema() -%}
    {%- if execute and build_schema is not none and not flags.FULL_REFRESH -%}
        {%- set published_schema = published_marts_schema() -%}
        {%- set kept_schema = published_schema ~ '__previous' -%}
        {%- set selected_marts = [] -%}
        {%- set incremental = [] -%}
        {%- for node in graph.nodes.values()
              if node.resource_type == 'model' and node.schema == build_schema
                 and node.unique_id in selected_resources -%}
            {%- do selected_marts.append(node.alias) -%}
            {%- if node.config.materialized == 'incremental' -%}{%- do incremental.append(node) -%}{%- endif -%}
        {%- endfor -%}
        {%- if incremental | length > 0 -%}
            {%- set movable = kept_marts_to_continue(published_schema, kept_schema, selected_marts) -%}
            {%- for node in incremental -%}
                {%- set published = adapter.get_relation(node.database, published_schema, node.alias) -%}
                {%- set built = adapter.get_relation(node.database, build_schema, node.alias) -%}
                {%- if published is not none and published.type == 'table' and built is none -%}
                    {%- set start = api.Relation.create(database=node.database, schema=build_schema,
                                                        identifier=node.alias, type='table') -%}
                    {%- if node.alias in movable -%}
                        {%- call statement('continue_kept_' ~ node.name) -%}
                            {{ move_table_with_partitions(kept_schema, node.alias, build_schema) }}
                        {%- endcall -%}
                    {%- else -%}
                        {%- call statement('copy_published_' ~ node.name) -%}
                            do $copy$
                            declare
                                index_sql text;
                            begin
                                -- A partitioned table is copied partitioned, month by month: the
                                -- same partition key, partitions of the same names and bounds.
                                execute format('create table %s (like %s including all excluding indexes) %s',
                                               '{{ start }}', '{{ published }}',
                                               coalesce('partition by ' || pg_get_partkeydef('{{ published }}'::regclass), ''));
                                for index_sql in
                                    select format('create table %I.%I partition of %s %s', '{{ build_schema }}', c.relname,
                                                  '{{ start }}', pg_get_expr(c.relpartbound, c.oid))
                                    from pg_inherits as i
                                    join pg_class as c on c.oid = i.inhrelid
                                    where i.inhparent = '{{ published }}'::regclass
                                loop
                                    execute index_sql;
                                end loop;
                                insert into {{ start }} select * from {{ published }};
                                for index_sql in
                                    select replace(replace(pg_get_indexdef(indexrelid),
                                                           ' ON ONLY ' || indrelid::regclass::text || ' ',
                                                           ' ON {{ build_schema }}.{{ node.alias }} '),
                                                   ' ON ' || indrelid::regclass::text || ' ',
                                                   ' ON {{ build_schema }}.{{ node.alias }} ')
                                    from pg_index
                                    where indrelid = '{{ published_schema }}.{{ node.alias }}'::regclass
                                      and not indisprimary
                                loop
                                    execute index_sql;
                                end loop;
                                -- The primary key as a constraint (macro primary_key), not as the
                                -- bare unique index pg_get_indexdef gives: the model's post_hook
                                -- then finds it and does not build a second one.
                                for index_sql in
                                    select format('alter table {{ build_schema }}.{{ node.alias }} add constraint %I %s',
                                                  conname, pg_get_constraintdef(oid))
                                    from pg_constraint
                                    where conrelid = '{{ published_schema }}.{{ node.alias }}'::regclass
                                      and contype = 'p'
                                loop
                                    execute index_sql;
                                end loop;
                            end
                            $copy$;
                            analyze {{ start }};
                        {%- endcall -%}
                    {%- endif -%}
                    {%- do adapter.cache_added(start) -%}
                {%- endif -%}
            {%- endfor -%}
            {#- The queries above opened a transaction: commit what they moved or copied. -#}
            {%- do adapter.commit() -%}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{#- The kept marts this build may continue from (names): none unless the latest publication's marts
    are all in `selected_marts`; then each table of `kept_schema` whose comment is the marker
    publish-marts.ts wrote (keptMartMarker: that publication, and the OID of the table that replaced
    it, still the published one). -#}
{% macro kept_marts_to_continue(published_schema, kept_schema, selected_marts) -%}
    {%- set query -%}
        select k.relname::text
        from pg_catalog.pg_class as k
        join pg_catalog.pg_namespace as kn on kn.oid = k.relnamespace and kn.nspname = '{{ kept_schema }}'
        join pg_catalog.pg_namespace as pn on pn.nspname = '{{ published_schema }}'
        join pg_catalog.pg_class as p on p.relnamespace = pn.oid and p.relname = k.relname and p.relkind in ('r', 'p')
        cross join lateral (
            select id, marts from etl.published_marts order by id desc limit 1
        ) as latest
        where k.relkind in ('r', 'p')
          and latest.marts <@ array[{% for name in selected_marts %}'{{ name }}'{{ ', ' if not loop.last }}{% endfor %}]::text[]
          and obj_description(k.oid, 'pg_class')
              = format('telecom-etl kept: publication %s, replaced by relation %s', latest.id, p.oid::int8)
    {%- endset -%}
    {%- if selected_marts | length == 0 or run_query("select to_regclass('etl.published_marts') is null").columns[0].values()[0] -%}
        {{- return([]) -}}
    {%- endif -%}
    {{- return(run_query(query).columns[0].values() | list) -}}
{%- endmacro %}
