{#- Models land in <target schema>_<folder schema> (analytics_staging, analytics_marts, ...), except
    the marts while `telecom-etl transform` builds them: then they land in the build schema it names
    (macro marts_build_schema) and are published from there once every test passed. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- set custom = custom_schema_name | trim if custom_schema_name is not none else none -%}
    {%- if custom == 'marts' and marts_build_schema() is not none -%}{{ marts_build_schema() }}
    {%- elif custom is none -%}{{ target.schema }}
    {%- else -%}{{ target.schema }}_{{ custom }}{%- endif -%}
{%- endmacro %}
