{#- The accounts whose time zone (stg_etl__account_time_zones) changed after `relation`'s latest
    build (max of its built_at), as a list at execution (empty at parse time, when the relation is
    empty, or when nothing changed). An incremental mart with local dates re-processes their rows:
    the zone is written before dbt starts, so a build that re-processed an account stamps built_at
    after the change and the next build no longer lists it. -#}
{% macro time_zones_changed_since(relation) -%}
    {%- set accounts = [] -%}
    {%- if execute and model.resource_type != 'unit_test' -%}
        {%- set query -%}
            select z.account
            from {{ ref('stg_etl__account_time_zones') }} as z
            where z.time_zone_updated_at > (select max(built_at) from {{ relation }})
            order by 1
        {%- endset -%}
        {%- set accounts = run_query(query).columns[0].values() | list -%}
    {%- endif -%}
    {{ return(accounts) }}
{%- endmacro %}

{#- `accounts` as a SQL list of string literals, for `account in (...)`. -#}
{% macro sql_string_list(accounts) -%}
    {%- for a in accounts -%}'{{ a | replace("'", "''") }}'{{ ', ' if not loop.last }}{%- endfor -%}
{%- endmacro %}
