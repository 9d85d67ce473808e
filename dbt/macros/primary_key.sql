{#- The primary key of a fact, dimension or report mart, on the grain its yml's unique_combination
    states (a report whose grain can hold NULL, "no value", keys its grain's hash instead: macro
    grain_key), for
    a post_hook run outside the model's transaction: `{sql: "{{ primary_key(this, ['account', 'call_uuid']) }}", transaction: false}`.
    BI tools (Metabase, Superset) read a table's grain and its joinable columns from the primary key,
    and the database then refuses a duplicate row (23505) instead of a test finding it after the
    fact. Idempotent: a table that has its primary key already (an incremental mart continuing from
    the published one, whose key copy_published_incremental_marts copied with it) is left alone, so
    the key's index is built once per table. The constraint is named `<table>_pkey`, as Postgres
    names it; a key column must be not null (the key makes it so). A model partitioned by month
    (config partitioned_by_month, macros month_partitions) has the partition column added: a
    partitioned table's unique index must hold it. -#}
{% macro primary_key(relation, columns) -%}
    {%- set partition_column = config.get('partitioned_by_month') -%}
    {%- set columns = columns + [partition_column] if partition_column and partition_column not in columns else columns -%}
    do $primary_key$
    begin
        if not exists (
            select from pg_catalog.pg_constraint
            where conrelid = '{{ relation }}'::regclass and contype = 'p'
        ) then
            alter table {{ relation }}
                add constraint {{ adapter.quote(relation.identifier ~ '_pkey') }}
                primary key ({% for column in columns %}{{ adapter.quote(column) }}{{ ', ' if not loop.last }}{% endfor %});
        end if;
    end
    $primary_key$
{%- endmacro %}

{#- The column a report whose grain can hold NULL ("no value" stays NULL for BI) is keyed on:
    `{{ grain_key(['call_date', 'account', 'placing_trunk_name']) }}` in the select list gives
    `grain_key`, macro grain_hash of the grain's columns, and the post_hook
    `{{ primary_key(this, [grain_key_column()]) }}` makes it the primary key. The grain's own
    columns stay as they are (its unique_combination test stays on them). -#}
{% macro grain_key(columns) -%}
    {{ grain_hash(columns) }} as {{ grain_key_column() }}
{%- endmacro %}

{#- The md5 of a grain's columns (expressions) as one JSON array: each value quoted and escaped,
    NULL as null, so two different grains never hash the same text (dbt_utils'
    generate_surrogate_key joins the values with '-': ('master', 'sub-x') and ('master-sub', 'x')
    hashed alike; singular test assert_grain_hash_unambiguous). -#}
{% macro grain_hash(columns) -%}
    md5(jsonb_build_array({{ columns | join(', ') }})::text)
{%- endmacro %}

{#- The name of macro grain_key's column, for the primary_key post_hook and settle_window_start's
    `requires` (an incremental report built before it had the column re-builds every day once). -#}
{% macro grain_key_column() -%}
    {{- return('grain_key') -}}
{%- endmacro %}
