{#- dbt's view materialization, skipping views whose SQL has not changed since they were created.

    dbt re-creates every view on every build (create a new one, rename, drop the old: five
    statements and dbt's own overhead for each of the sixteen staging and intermediate views), yet
    a view only changes when its compiled SQL does. This one stamps each view it creates with the
    MD5 of its compiled SQL (the view's comment: staging and intermediate views have no
    description to persist) and, when the stamp of the existing view is the same, does nothing
    but read that stamp. `--full-refresh` always re-creates. A view changed by hand outside dbt
    keeps its stamp: re-create it with `transform --full-refresh`. -#}
{%- materialization view, adapter='postgres' -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set stamp = 'dbt view sql md5 ' ~ local_md5(sql) -%}
    {%- set stampable = not config.persist_relation_docs() -%}
    {%- if stampable and existing_relation is not none and existing_relation.type == 'view' and not should_full_refresh() -%}
        {%- call statement('main', fetch_result=True) -%}
            select obj_description({{ dbt.string_literal(this.render()) }}::regclass, 'pg_class') as stamp
        {%- endcall -%}
        {%- if load_result('main').table.columns[0].values()[0] == stamp -%}
            {{ return({'relations': [this.incorporate(type='view')]}) }}
        {%- endif -%}
    {%- endif -%}
    {%- set relations = context['materialization_view_default']() -%}
    {%- if stampable -%}
        {%- call statement('stamp') -%}
            comment on view {{ this }} is {{ dbt.string_literal(stamp) }}
        {%- endcall -%}
        {%- do adapter.commit() -%}
    {%- endif -%}
    {{ return(relations) }}
{%- endmaterialization -%}
