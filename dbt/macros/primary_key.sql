{#- The primary key of a fact or dimension mart, for a post_hook run outside the model's
    transaction: `{sql: "{{ primary_key(this, ['account', 'call_uuid']) }}", transaction: false}`.
    BI tools (Metabase, Superset) read a table's grain and its joinable columns from the primary key,
    and the database then refuses a duplicate row (23505) instead of a test finding it after the
    fact. Idempotent: a table that has its primary key already (an incremental mart continuing from
    the published one, whose key copy_published_incremental_marts copied with it) is left alone, so
    the key's index is built once per table. The constraint is named `<table>_pkey`, as Postgres
    names it; a key column must be not null (the key makes it so). -#}
{% macro primary_key(relation, columns) -%}
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
