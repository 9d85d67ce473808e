-- Daily call volume and cost per account, direction and destination. Numerators and denominators
-- are stored (answered_calls and calls) so BI can re-aggregate ratios correctly.
select
    account,
    call_date,
    direction,
    coalesce(destination, '(none)')      as destination,
    count(*)                             as calls,
    count(*) filter (where is_answered)  as answered_calls,
    sum(duration_seconds)                as duration_seconds,
    sum(billed_minutes)                  as billed_minutes,
    sum(charge_usd)                      as charge_usd,
    sum(forward_fee_usd)                 as forward_fee_usd,
    sum(total_cost_usd)                  as total_cost_usd
from {{ ref('int_calls_costed') }}
group by 1, 2, 3, 4
