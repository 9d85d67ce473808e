{#- An index on `columns` (in that order) of a table mart, for a post_hook:
    `'{{ ensure_index(this, ["account", "campaign"]) }}'`. Created when the table has no index on
    exactly those columns, named by Postgres (a free name, so a renamed predecessor's index never
    blocks it). Unlike the model's `indexes` config, which dbt applies only when it creates the
    table, this also reaches an incremental table built before the index was declared. -#}
{% macro ensure_index(relation, columns) -%}
    do $ensure_index$
    begin
        if not exists (
            select from pg_catalog.pg_index as i
            where i.indrelid = '{{ relation }}'::regclass
              and array(
                    select a.attname::text
                    from unnest(i.indkey) with ordinality as k(attnum, position)
                    join pg_catalog.pg_attribute as a on a.attrelid = i.indrelid and a.attnum = k.attnum
                    order by k.position
                  ) = array[{% for column in columns %}'{{ column }}'{{ ', ' if not loop.last }}{% endfor %}]::text[]
        ) then
            create index on {{ relation }} ({% for column in columns %}{{ adapter.quote(column) }}{{ ', ' if not loop.last }}{% endfor %});
        end if;
    end
    $ensure_index$
{%- endmacro %}
