-- Call legs with their total cost (call charge + PSTN forwarding fee, macro call_cost: each part
-- where it is known) and billed minutes (the platform rounds every started minute up). A billable
-- leg that came without its charge (`is_charge_missing`) costs its forward fee (`is_cost_partial`),
-- or NULL (unknown, not 0) when it has none. A leg the platform bills nothing for (not answered,
-- failed: null charge by design) costs its forward fee, else 0.
select
    account,
    direction,
    call_uuid,
    parent_call_uuid,
    called_at,
    call_date,
    from_number,
    to_number,
    disposition,
    is_answered,
    duration_seconds,
    ceil(duration_seconds / 60.0)::integer                  as billed_minutes,
    destination,
    sip_trunk,
    answered_by,
    per_minute_usd,
    charge_usd,
    forward_fee_usd,
    is_charge_missing,
    estimated_missing_charge_usd,
    {{ call_cost_is_partial('forward_fee_usd', 'is_charge_missing') }} as is_cost_partial,
    {{ call_cost('charge_usd', 'forward_fee_usd', 'is_charge_missing') | indent(4) }}
                                                            as total_cost_usd
from {{ ref('stg_platform__cdrs') }}
