-- One row per asynchronous request the loader tracks (a transcription, a validation token):
-- renamed and cast only. first_seen_at is when the request was made if `telecom-etl track
-- --submitted-at` said so, else when it was first tracked.
select
    kind                as request_kind,
    account,
    external_id,
    status              as tracking_status,
    attempts,
    first_seen_at,
    last_seen_at
from {{ source('etl', 'tracked_requests') }}
