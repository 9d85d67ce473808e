-- One row per SIP trunk of an account (the set the last run listed): renamed and cast.
select
    _account                    as account,
    id                          as trunk_id,
    name                        as trunk_name,
    label                       as trunk_label,
    callerid                    as caller_id,
    created_at,
    ip_restrict                 as is_ip_restricted,
    channels_restrict           as is_channels_restricted,
    max_channels,
    cost_limit                  as has_cost_limit,
    max_call_cost               as max_call_cost_usd,
    call_restrict               as is_call_duration_restricted,
    call_limit                  as call_limit_seconds,
    call_recording_enabled      as is_recording_enabled,
    machine_detection_enabled   as is_machine_detection_enabled,
    transcription_enabled       as is_transcription_enabled,
    transcription_threshold     as transcription_threshold_seconds,
    encrypted_media             as is_media_encrypted,
    _extracted_at               as extracted_at
from {{ source('platform', 'sip_trunks') }}
