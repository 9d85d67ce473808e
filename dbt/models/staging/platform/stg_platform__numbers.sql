-- One row per phone number an account owns (the set the last run listed): renamed and cast.
select
    _account                    as account,
    id                          as number_id,
    number                      as phone_number,
    label                       as number_label,
    city,
    state,
    country,
    country_short_name          as country_code,
    status                      as number_status,
    activation_fee              as activation_fee_usd,
    monthly_fee                 as monthly_fee_usd,
    per_min                     as per_minute_usd,
    channels,
    sms_enabled                 as is_sms_enabled,
    call_recording_enabled      as is_recording_enabled,
    transcription_enabled       as is_transcription_enabled,
    transcription_threshold     as transcription_threshold_seconds,
    destinations                as destinations_json,
    added                       as added_at,
    paid_until                  as paid_until_date,
    _extracted_at               as extracted_at
from {{ source('platform', 'numbers') }}
