{#- `analyze relation` when its planner statistics are missing or stale: never analyzed (a table a
    full refresh just created), or more than `share` of its rows modified since the last analyze
    (autovacuum's own rule, run at once instead of whenever autovacuum wakes up; the build's own
    writes counted, which the shared counters get only after its commit). A nightly
    incremental build that changes a few percent of a large fact skips the analyze (seconds of
    sampling): the reports read its new days by literal call_date ranges, which the planner
    estimates from the index's actual bounds, not from the statistics. For a post_hook; empty SQL
    (no statement) when the statistics are fresh.
    A table partitioned by month (macros month_partitions): the same rule per partition (only the
    stale months, mostly the one a nightly wrote, are analyzed); the table as a whole (ANALYZE of a
    partitioned table samples every partition for the statistics of the whole, which autovacuum
    never gathers, and analyzes each partition too) when it was never analyzed or last analyzed
    more than `whole_days` ago. -#}
{% macro analyze_if_stale(relation, share=0.1, whole_days=7) -%}
    {%- set query -%}
        with whole as (
            select c.oid
            from pg_class as c
            join pg_namespace as n on n.oid = c.relnamespace
            where n.nspname = '{{ relation.schema }}' and c.relname = '{{ relation.identifier }}'
        ),
        tables as (
            select c.oid, c.relkind, c.reltuples, true as is_whole
            from whole join pg_class as c on c.oid = whole.oid
            union all
            select p.oid, p.relkind, p.reltuples, false
            from whole
            join pg_inherits as i on i.inhparent = whole.oid
            join pg_class as p on p.oid = i.inhrelid
        )
        select t.is_whole, format('%I.%I', s.schemaname, s.relname) as name
        from tables as t
        join pg_stat_user_tables as s on s.relid = t.oid
        -- This build's own writes (its transaction's, not yet in the shared counters).
        join pg_stat_xact_user_tables as x on x.relid = t.oid
        where case
            when t.relkind = 'p' then coalesce(s.last_analyze, s.last_autoanalyze) is null
                or coalesce(s.last_analyze, s.last_autoanalyze) < now() - interval '{{ whole_days }} days'
            else coalesce(s.last_analyze, s.last_autoanalyze) is null
                or s.n_mod_since_analyze + x.n_tup_ins + x.n_tup_upd + x.n_tup_del
                   > {{ share }} * greatest(t.reltuples, 0)
        end
    {%- endset -%}
    {%- if execute -%}
        {%- set stale = run_query(query) -%}
        {%- if true in stale.columns[0].values() -%}
            analyze {{ relation }}
        {%- elif stale.rows | length > 0 -%}
            analyze {{ stale.columns[1].values() | join(', ') }}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
