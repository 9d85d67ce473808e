-- One row per call leg, with its cost: the grain BI slices by account, day, direction, destination.
select * from {{ ref('int_calls_costed') }}
