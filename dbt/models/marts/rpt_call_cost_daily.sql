-- Daily call volume and cost per account, direction and destination. Numerators and denominators
-- are stored (answered_calls and calls) so BI can re-aggregate ratios correctly. Costs sum the
-- legs whose cost is known; charge_missing_calls counts the billable legs that came without a
-- charge (their cost is unknown and not in the sums).
select
    account,
    call_date,
    direction,
    coalesce(destination, '(none)')                 as destination,
    count(*)                                        as calls,
    count(*) filter (where is_answered)             as answered_calls,
    sum(duration_seconds)                           as duration_seconds,
    sum(billed_minutes)                             as billed_minutes,
    coalesce(sum(charge_usd), 0)                    as charge_usd,
    coalesce(sum(forward_fee_usd), 0)               as forward_fee_usd,
    coalesce(sum(total_cost_usd), 0)                as total_cost_usd,
    count(*) filter (where is_charge_missing)       as charge_missing_calls
from {{ ref('int_calls_costed') }}
group by 1, 2, 3, 4
