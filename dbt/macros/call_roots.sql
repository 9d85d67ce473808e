{#- The root call of every child leg of `child_legs` (a relation or CTE name with account,
    direction, call_uuid, parent_call_uuid): walks parent_call_uuid up through `all_legs` (the
    stg_platform__cdrs shape) until a leg without a parent (or whose parent is not loaded yet; then
    the farthest loaded ancestor is the root). One row per child leg: account, direction,
    call_uuid, root_call_uuid, leg_depth (1 = child of a root). Depth is capped at 20 so a cycle in
    bad data cannot loop. fct_calls walks only the legs of its window; each step is a key lookup. -#}
{% macro call_roots(child_legs, all_legs) -%}
with recursive walk as (
    select
        c.account,
        c.direction,
        c.call_uuid,
        c.parent_call_uuid      as ancestor_uuid,
        1                       as depth
    from {{ child_legs }} as c
    where c.parent_call_uuid is not null
    union all
    select
        w.account,
        w.direction,
        w.call_uuid,
        p.parent_call_uuid      as ancestor_uuid,
        w.depth + 1
    from walk as w
    join {{ all_legs }} as p
        on p.account = w.account
       and p.direction = w.direction
       and p.call_uuid = w.ancestor_uuid
    where p.parent_call_uuid is not null and w.depth < 20
)
select distinct on (account, direction, call_uuid)
    account,
    direction,
    call_uuid,
    ancestor_uuid               as root_call_uuid,
    depth                       as leg_depth
from walk
order by account, direction, call_uuid, depth desc
{%- endmacro %}
