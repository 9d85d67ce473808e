-- One row per settled window of an (account, stream) (etl.stream_state; window_end exclusive), with
-- when it was settled and the read that settled it: renamed and cast only.
select
    account,
    stream,
    window_start,
    window_end,
    read_at,
    completed_at        as settled_at,
    run_id
from {{ source('etl', 'stream_state') }}
