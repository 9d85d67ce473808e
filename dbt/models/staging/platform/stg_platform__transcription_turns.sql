-- One row per speaker turn of a transcription; start and end are milliseconds from the call's answer.
select
    _account        as account,
    request_id,
    turn_index,
    speaker,
    start_ms,
    end_ms,
    text            as turn_text,
    sentiment,
    _extracted_at   as extracted_at
from {{ source('platform', 'transcription_turns') }}
