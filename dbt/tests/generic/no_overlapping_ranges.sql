{#- Fails for every row whose inclusive [start, end] range begins before the previous range of the
    same partition (ordered by start, then end) has ended. -#}
{% test no_overlapping_ranges(model, partition_by, start_column, end_column) %}
select *
from (
    select
        {{ partition_by }},
        {{ start_column }},
        {{ end_column }},
        lag({{ end_column }}) over (
            partition by {{ partition_by }} order by {{ start_column }}, {{ end_column }}
        ) as previous_end
    from {{ model }}
) as ranges
where previous_end >= {{ start_column }}
{% endtest %}
