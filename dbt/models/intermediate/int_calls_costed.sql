-- Call legs with their total cost (call charge + PSTN forwarding fee) and billed minutes.
select
    account,
    direction,
    call_uuid,
    parent_call_uuid,
    called_at,
    call_date,
    disposition,
    is_answered,
    duration_seconds,
    ceil(duration_seconds / 60.0)::integer  as billed_minutes,
    destination,
    sip_trunk,
    answered_by,
    per_minute_usd,
    charge_usd,
    forward_fee_usd,
    charge_usd + forward_fee_usd           as total_cost_usd
from {{ ref('stg_platform__cdrs') }}
