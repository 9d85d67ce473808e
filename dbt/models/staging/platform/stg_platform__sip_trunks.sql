-- One row per SIP trunk of an account (the set the last run listed, as GET /v1/trunks summarises
-- it): renamed and cast. `talk_time` and `charge` are the trunk's outbound totals for the current
-- month so far as of the read (reset at the start of each month): a month-to-date figure, not a
-- lifetime one.
select
    _account                                            as account,
    id                                                  as trunk_id,
    name                                                as trunk_name,
    label                                               as trunk_label,
    callerid                                            as caller_id,
    auth_method,
    host_request ->> 'host'                             as ip_auth_host,
    host_request ->> 'status'                           as ip_auth_request_status,
    status                                              as trunk_status,
    passthrough                                         as is_caller_id_passthrough,
    multiple_numbers                                    as allows_multiple_caller_ids,
    call_recording_enabled                              as is_recording_enabled,
    machine_detection_enabled                           as is_machine_detection_enabled,
    transcription_enabled                               as is_transcription_enabled,
    transcription_threshold                             as transcription_threshold_seconds,
    encrypted_media                                     as is_media_encrypted,
    talk_time                                           as month_to_date_talk_time_seconds,
    charge                                              as month_to_date_charge_usd,
    date_trunc('month', _extracted_at at time zone 'UTC')::date as month_to_date_start_date,
    _extracted_at                                       as extracted_at
from {{ source('platform', 'sip_trunks') }}
