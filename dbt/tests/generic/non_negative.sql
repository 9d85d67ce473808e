{#- Fails for every row where the column is below zero (nulls pass; pair with not_null). -#}
{% test non_negative(model, column_name) %}
select {{ column_name }} from {{ model }} where {{ column_name }} < 0
{% endtest %}
