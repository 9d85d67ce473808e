{#- Fails for every non-null value of the column whose (account, value) has no row in `to`
    with the same account and `field` = value: a relationship scoped by account. -#}
{% test relationships_by_account(model, column_name, to, field) %}
with child as (
    -- A CTE, not an alias: with a `where` config dbt passes `model` as an aliased subquery.
    select * from {{ model }}
)
select child.account, child.{{ column_name }}
from child
left join {{ to }} as parent
    on parent.account = child.account and parent.{{ field }} = child.{{ column_name }}
where child.{{ column_name }} is not null and parent.{{ field }} is null
{% endtest %}
