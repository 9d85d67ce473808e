{#-
  USAGE on the published marts schema for the BI role (dbt's `grants` config covers the tables, not
  the schema). Run from on-run-end, so it holds after any build; a build that has not created the
  marts schema yet (a staging-only --select, or the first build, which `telecom-etl transform`
  publishes afterwards and grants then) grants nothing. Staging, intermediate and the build schema
  (macro marts_build_schema) get nothing.
-#}
{% macro grant_marts_schema_usage(role) -%}
    {%- set marts_schema = published_marts_schema() -%}
    do $$
    begin
      if exists (select from pg_namespace where nspname = '{{ marts_schema }}')
         and exists (select from pg_roles where rolname = '{{ role }}') then
        execute 'grant usage on schema {{ adapter.quote(marts_schema) }} to {{ adapter.quote(role) }}';
      end if;
    end
    $$
{%- endmacro %}
