{#-
  USAGE on the marts schema for the BI role (dbt's `grants` config covers the tables, not the
  schema). Run from on-run-end, so it holds after any build; a build that has not created the marts
  schema yet (a staging-only --select) grants nothing. Staging and intermediate get nothing.
-#}
{% macro grant_marts_schema_usage(role) -%}
    {%- set marts_schema = generate_schema_name('marts', none) -%}
    do $$
    begin
      if exists (select from pg_namespace where nspname = '{{ marts_schema }}')
         and exists (select from pg_roles where rolname = '{{ role }}') then
        execute 'grant usage on schema {{ adapter.quote(marts_schema) }} to {{ adapter.quote(role) }}';
      end if;
    end
    $$
{%- endmacro %}
