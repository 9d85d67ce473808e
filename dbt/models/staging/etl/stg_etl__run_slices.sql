-- One row per slice a run read (etl.run_slices): its window (UTC dates, end exclusive; null for a
-- slice without one), status and when it ran: renamed and cast only.
select
    id                  as slice_id,
    run_id,
    account,
    stream,
    slice,
    window_start,
    window_end,
    status              as slice_status,
    settled,
    started_at,
    finished_at
from {{ source('etl', 'run_slices') }}
