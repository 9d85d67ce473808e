-- One row per transcription, keyed by the id it was asked by (a call's uuid, or an uploaded file's
-- request id): renamed and cast. `score` is the platform's 1–5 conversation score (null when failed).
select
    _account                                        as account,
    request_id,
    call_uuid,
    transcription_id,
    status                                          as transcription_status,
    language,
    duration                                        as duration_seconds,
    charge                                          as charge_usd,
    transcription_date                              as transcribed_at,
    call_date                                       as call_at,
    score,
    summary,
    original_file,
    _extracted_at                                   as extracted_at
from {{ source('platform', 'transcriptions') }}
