-- One row per recording as GET /v1/recordings lists it (account × recording_id): renamed and cast,
-- nothing else. A call has at most one recording; created_at is when it was made (its call's end).
select
    _account                                    as account,
    id                                          as recording_id,
    call_uuid,
    created_at                                  as recorded_at,
    (created_at at time zone 'UTC')::date       as recorded_date,
    duration                                    as duration_seconds,
    from_number,
    to_number,
    url                                         as recording_url,
    _extracted_at                               as extracted_at
from {{ source('platform', 'recordings') }}
