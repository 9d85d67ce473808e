-- One row per call with a recording (answered calls on a trunk or number with recording on).
select
    _account        as account,
    uuid            as call_uuid,
    date            as called_at,
    recording_url,
    _extracted_at   as extracted_at
from {{ source('platform', 'recordings') }}
