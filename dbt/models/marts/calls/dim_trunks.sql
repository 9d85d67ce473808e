-- One row per SIP trunk of an account (as last listed): its label and the settings that shape its
-- calls (recording, machine detection, transcription and its threshold, limits). CDRs name a trunk
-- by its login (`trunk_name`), so (account, trunk_name) is how fct_calls joins here.
select
    account || '/' || trunk_name        as trunk_key,
    account,
    trunk_id,
    trunk_name,
    trunk_label,
    caller_id,
    created_at,
    is_recording_enabled,
    is_machine_detection_enabled,
    is_transcription_enabled,
    transcription_threshold_seconds,
    is_ip_restricted,
    is_channels_restricted,
    max_channels,
    has_cost_limit,
    max_call_cost_usd,
    is_call_duration_restricted,
    call_limit_seconds,
    is_media_encrypted,
    extracted_at
from {{ ref('stg_platform__sip_trunks') }}
