{#- `analyze relation` when its planner statistics are missing or stale: never analyzed (a table a
    full refresh just created), or more than `share` of its rows modified since the last analyze
    (autovacuum's own rule, run at once instead of whenever autovacuum wakes up). A nightly
    incremental build that changes a few percent of a large fact skips the analyze (seconds of
    sampling): the reports read its new days by literal call_date ranges, which the planner
    estimates from the index's actual bounds, not from the statistics. For a post_hook; empty SQL
    (no statement) when the statistics are fresh. -#}
{% macro analyze_if_stale(relation, share=0.1) -%}
    {%- set query -%}
        select coalesce(s.last_analyze, s.last_autoanalyze) is null
            or s.n_mod_since_analyze > {{ share }} * greatest(c.reltuples, 0)
        from pg_class as c
        join pg_namespace as n on n.oid = c.relnamespace
        left join pg_stat_user_tables as s on s.relid = c.oid
        where n.nspname = '{{ relation.schema }}' and c.relname = '{{ relation.identifier }}'
    {%- endset -%}
    {%- if execute and run_query(query).columns[0].values() | first -%}
        analyze {{ relation }}
    {%- endif -%}
{%- endmacro %}
