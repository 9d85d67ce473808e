-- One row per call leg as the platform reports it: renamed and cast, nothing else.
select
    _account                          as account,
    direction,
    uuid                              as call_uuid,
    parent_uuid                       as parent_call_uuid,
    date                              as called_at,
    (date at time zone 'UTC')::date   as call_date,
    from_number,
    to_number,
    disposition,
    disposition = 'answered'          as is_answered,
    duration                          as duration_seconds,
    destination,
    sip_trunk,
    answered_by,
    per_minute                        as per_minute_usd,
    coalesce(charge, 0)::numeric      as charge_usd,
    coalesce(forward_fee, 0)::numeric as forward_fee_usd,
    _extracted_at                     as extracted_at
from {{ source('platform', 'cdrs') }}
