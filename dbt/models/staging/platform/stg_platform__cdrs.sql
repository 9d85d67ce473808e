-- One row per call leg as the platform reports it: renamed and cast, nothing else. Nulls stay
-- nulls: a charge the platform did not send is not 0 (`is_charge_missing`, macro charge_is_missing,
-- says when a billable leg came without one, and `estimated_missing_charge_usd` what it would have
-- been); `forward_fee_usd` is null on every leg not forwarded to the PSTN.
select
    _account                                    as account,
    direction,
    uuid                                        as call_uuid,
    parent_uuid                                 as parent_call_uuid,
    date                                        as called_at,
    (date at time zone 'UTC')::date             as call_date,
    from_number,
    to_number,
    disposition,
    disposition = 'answered'                    as is_answered,
    duration                                    as duration_seconds,
    destination,
    sip_trunk,
    answered_by,
    per_minute                                  as per_minute_usd,
    charge::numeric                             as charge_usd,
    forward_fee::numeric                        as forward_fee_usd,
    {{ charge_is_missing('charge', 'disposition', 'per_minute', 'duration') }}
                                                as is_charge_missing,
    {{ estimated_missing_charge('charge', 'disposition', 'per_minute', 'duration') }}
                                                as estimated_missing_charge_usd,
    _extracted_at                               as extracted_at
from {{ source('platform', 'cdrs') }}
