-- The root call of every child leg: walks parent_call_uuid up until a leg without a parent (or
-- whose parent is not loaded yet; then the farthest loaded ancestor is the root). Only child legs
-- are walked (a few percent of calls); a leg without a parent is its own root. Depth is capped at
-- 20 so a cycle in bad data cannot loop.
with recursive walk as (
    select
        c.account,
        c.direction,
        c.call_uuid,
        c.parent_call_uuid      as ancestor_uuid,
        1                       as depth
    from {{ ref('stg_platform__cdrs') }} as c
    where c.parent_call_uuid is not null
    union all
    select
        w.account,
        w.direction,
        w.call_uuid,
        p.parent_call_uuid      as ancestor_uuid,
        w.depth + 1
    from walk as w
    join {{ ref('stg_platform__cdrs') }} as p
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
