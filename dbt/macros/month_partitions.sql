{#- Facts partitioned by month (docs/explanation/partitions-and-retention.md, "Partitions and retention"). An incremental model configured
    with `partitioned_by_month='<date column>'` and `incremental_strategy='month_partitioned_merge'`
    (or `'month_partitioned_delete_insert'`, for a model re-built by whole days) is built as a
    table partitioned by range of that column (never null), one partition per calendar month,
    named <table>_pYYYY_MM as the landing tables' partitions are. Its primary key holds the column
    (a partitioned table's unique index must: macro primary_key adds it); the strategies keep a row
    unique by its key alone, as the loader does for the landing tables. With var partition_facts
    false the models build plain tables (the benchmark's comparison), and the strategies write a
    plain table as dbt's `merge` / `delete+insert` do (also a table built before partitioning: it
    becomes partitioned at its next --full-refresh). -#}

{#- dbt's table creation, except for a model with `partitioned_by_month`: its rows go to a temporary
    table first, then into the partitioned table in the column's order (a read of the last days is
    the last pages of each month's partition), after every month they hold has its partition. -#}
{% macro postgres__create_table_as(temporary, relation, sql) -%}
    {%- set column = config.get('partitioned_by_month') -%}
    {%- if temporary or not column -%}
        {{- dbt.postgres__create_table_as(temporary, relation, sql) -}}
    {%- else -%}
        {%- set rows = adapter.quote(relation.identifier ~ '__rows') -%}
        {%- set quoted_column = adapter.quote(column) -%}
        create temporary table {{ rows }} as (
            {{ sql }}
        );
        create table {{ relation }} (like pg_temp.{{ rows }}) partition by range ({{ quoted_column }});
        {{ create_month_partitions(relation, 'pg_temp.' ~ rows, column) }};
        insert into {{ relation }} select * from pg_temp.{{ rows }} order by {{ quoted_column }};
        drop table pg_temp.{{ rows }};
    {%- endif -%}
{%- endmacro %}

{#- The partition column of the model being built when its table `target` is partitioned by month
    (config partitioned_by_month); none for a plain table (var partition_facts false, or a table
    built before the model was partitioned: it becomes partitioned at its next --full-refresh). -#}
{% macro partition_column_of(target) -%}
    {%- set column = config.get('partitioned_by_month') -%}
    {%- if not column -%}{{- return(none) -}}{%- endif -%}
    {%- set kind = run_query("select relkind from pg_catalog.pg_class where oid = '" ~ target ~ "'::regclass").columns[0].values()[0] -%}
    {{- return(column if kind == 'p' else none) -}}
{%- endmacro %}

{#- `DBT_INTERNAL_DEST.<column> >= <the earliest value of column in source>`, a literal, so the
    planner reads only the partitions from that month on; none when `source` is empty. -#}
{% macro from_earliest_of(source, column) -%}
    {%- set quoted_column = adapter.quote(column) -%}
    {%- set earliest = run_query('select min(' ~ quoted_column ~ ') from ' ~ source).columns[0].values()[0] -%}
    {{- return(none if earliest is none else 'DBT_INTERNAL_DEST.' ~ quoted_column ~ " >= '" ~ earliest ~ "'::date") -}}
{%- endmacro %}

{#- Custom incremental strategy `month_partitioned_merge` (fct_calls). Into a table partitioned by
    month: (1) each month the new rows fall in gets its partition; (2) a row whose key the table
    holds under another date (the platform moved a call to another day) is deleted there (macro
    delete_moved_rows); (3) MERGE on the key and the column, restricted to the dates from the new
    rows' earliest on: the planner reads only those months' partitions. Into a plain table: dbt's
    merge on the key. -#}
{% macro get_incremental_month_partitioned_merge_sql(arg_dict) -%}
    {%- set target = arg_dict['target_relation'] -%}
    {%- set source = arg_dict['temp_relation'] -%}
    {%- set key = arg_dict['unique_key'] -%}
    {%- set column = partition_column_of(target) -%}
    {%- if column is none -%}
        {{- get_merge_sql(target, source, key, arg_dict['dest_columns'], arg_dict['incremental_predicates']) -}}
    {%- else -%}
        {%- set window = from_earliest_of(source, column) -%}
        {{ create_month_partitions(target, source, column) }};

        {{ delete_moved_rows(target, source, key, column) }};

        {% if window is not none -%}
        {{ get_merge_sql(target, source, key + [column], arg_dict['dest_columns'], [window]) }}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{#- Custom incremental strategy `month_partitioned_delete_insert` (the facts re-built by whole days:
    unique_key is the partition column). Into a table partitioned by month: each month the new
    rows fall in gets its partition; with config `row_key` (the columns a row is unique by across
    days, e.g. account and message_id), a row the table holds under another day is deleted there
    (macro delete_moved_rows); then dbt's delete+insert of the days, restricted to the dates from
    the new rows' earliest on, so the delete reads only those months' partitions. Into a plain
    table: dbt's delete+insert. -#}
{% macro get_incremental_month_partitioned_delete_insert_sql(arg_dict) -%}
    {%- set target = arg_dict['target_relation'] -%}
    {%- set source = arg_dict['temp_relation'] -%}
    {%- set column = partition_column_of(target) -%}
    {%- set row_key = config.get('row_key') -%}
    {%- if column is none -%}
        {{- get_delete_insert_merge_sql(target, source, arg_dict['unique_key'], arg_dict['dest_columns'],
                                        arg_dict['incremental_predicates']) -}}
    {%- else -%}
        {%- set window = from_earliest_of(source, column) -%}
        {% if window is not none -%}
        {{ create_month_partitions(target, source, column) }};

        {% if row_key -%}
        {{ delete_moved_rows(target, source, row_key, column) }};
        {%- endif %}

        {{ get_delete_insert_merge_sql(target, source, arg_dict['unique_key'], arg_dict['dest_columns'], [window]) }}
        {%- else -%}
        select 'no new rows'
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{#- A DO block creating the month partitions of partitioned `relation` that the rows of `rows`
    fall in (by `column`) and that it lacks: <table>_pYYYY_MM, from the month's first day to the
    next month's. One transform builds at a time (its lock), so no two builds race for a name. -#}
{% macro create_month_partitions(relation, rows, column) -%}
    do $create_month_partitions$
    declare
        month date;
        partition_name text;
    begin
        for month in
            select distinct date_trunc('month', {{ adapter.quote(column) }})::date from {{ rows }}
            where {{ adapter.quote(column) }} is not null
        loop
            partition_name := '{{ relation.identifier }}_p' || to_char(month, 'YYYY_MM');
            if to_regclass(format('%I.%I', '{{ relation.schema }}', partition_name)) is null then
                execute format('create table %I.%I partition of %s for values from (%L) to (%L)',
                               '{{ relation.schema }}', partition_name, '{{ relation }}',
                               month, (month + interval '1 month')::date);
            end if;
        end loop;
    end
    $create_month_partitions$
{%- endmacro %}

{#- A DO block deleting from partitioned `target` each row whose `key` a row of `new_rows` has under
    another value of `column` (the platform moved it to another day). Only the rows the loader
    logged as moved are looked for (source etl.landing_moves, written with the move in the load's
    transaction): config `landing_moves` names the landing table the model's rows come from and
    the model's columns that hold that table's key, in its order (the account is `account`). A
    new row whose key and day match a move is looked up in every month partition (one index lookup
    each; a lateral subquery, so it stays one whatever the planner estimates); what is found under
    another day is deleted row by row. A nightly's cost is the moves', not its new rows' × months.
    A model with `row_key` or a merge key but no `landing_moves` is a compile error, never a
    silent skip. -#}
{% macro delete_moved_rows(target, new_rows, key, column) -%}
    {%- set moves = config.get('landing_moves') -%}
    {%- if moves is none -%}
        {{ exceptions.raise_compiler_error(model.name ~ " is partitioned by month with a row key: config landing_moves must name the landing table its rows come from and its key columns") }}
    {%- endif -%}
    {%- set quoted_column = adapter.quote(column) -%}
    {%- set key_match -%}
        {% for k in key %}y.{{ adapter.quote(k) }} = s.{{ adapter.quote(k) }}{{ ' and ' if not loop.last }}{% endfor %}
    {%- endset -%}
    do $moved_rows$
    declare
        moved record;
    begin
        for moved in
            select elsewhere.*
            from (
                select distinct {% for k in key %}n.{{ adapter.quote(k) }}, {% endfor %}n.{{ quoted_column }}
                from {{ new_rows }} as n
                join {{ source('etl', 'landing_moves') }} as m
                    on m.landing_table = '{{ moves['table'] }}'
                   and m.account = n.account
                   and m.moved_to_day = n.{{ quoted_column }}
                   and m.row_key = array[{% for k in moves['key'] %}n.{{ adapter.quote(k) }}::text{{ ', ' if not loop.last }}{% endfor %}]
            ) as s
            cross join lateral (
                select {% for k in key %}y.{{ adapter.quote(k) }}, {% endfor %}y.{{ quoted_column }}
                from {{ target }} as y
                where {{ key_match }} and y.{{ quoted_column }} <> s.{{ quoted_column }}
                offset 0
            ) as elsewhere
        loop
            delete from {{ target }} as t
            where {% for k in key %}t.{{ adapter.quote(k) }} = moved.{{ adapter.quote(k) }} and {% endfor -%}
                  t.{{ quoted_column }} = moved.{{ quoted_column }};
        end loop;
    end
    $moved_rows$
{%- endmacro %}

{#- For a post_hook outside the transaction (`transaction: false`): after a --full-refresh in place
    (a dbt run by hand, not `transform`), the new table's partitions carry the name of dbt's
    intermediate table (<table>__dbt_tmp_pYYYY_MM); renamed to <table>_pYYYY_MM once the old table
    is gone, so the next full refresh's names are free again. -#}
{% macro name_month_partitions(relation) -%}
    do $name_month_partitions$
    declare
        part record;
    begin
        for part in
            select c.relname::text as name
            from pg_catalog.pg_inherits as i
            join pg_catalog.pg_class as c on c.oid = i.inhrelid
            where i.inhparent = '{{ relation }}'::regclass
              and c.relname like '{{ relation.identifier }}\_\_dbt\_tmp\_p%'
        loop
            execute format('alter table %I.%I rename to %I', '{{ relation.schema }}', part.name,
                           '{{ relation.identifier }}_p' || substr(part.name, length('{{ relation.identifier }}__dbt_tmp_p') + 1));
        end loop;
    end
    $name_month_partitions$
{%- endmacro %}

{#- SQL moving table `schema.name` to `to_schema` with its partitions (ALTER TABLE … SET SCHEMA
    moves a partitioned table alone; its partitions would stay behind). -#}
{% macro move_table_with_partitions(schema, name, to_schema) -%}
    do $move_table$
    declare
        part regclass;
    begin
        for part in
            select inhrelid::regclass from pg_catalog.pg_inherits
            where inhparent = format('%I.%I', '{{ schema }}', '{{ name }}')::regclass
        loop
            execute format('alter table %s set schema %I', part, '{{ to_schema }}');
        end loop;
        execute format('alter table %I.%I set schema %I', '{{ schema }}', '{{ name }}', '{{ to_schema }}');
    end
    $move_table$
{%- endmacro %}
