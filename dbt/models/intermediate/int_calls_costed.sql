-- Call legs with their total cost (call charge + PSTN forwarding fee) and billed minutes (the
-- platform rounds every started minute up). `total_cost_usd` is null when a billable leg came
-- without its charge (`is_charge_missing`): unknown, not 0. A leg the platform bills nothing for
-- (not answered, failed: null charge by design) costs 0.
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
    case
        when is_charge_missing then null
        else coalesce(charge_usd, 0) + coalesce(forward_fee_usd, 0)
    end                                                     as total_cost_usd
from {{ ref('stg_platform__cdrs') }}
