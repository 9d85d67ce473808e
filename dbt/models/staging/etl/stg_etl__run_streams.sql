-- One row per (run, account, stream) a run planned, with the stream's status in that run and its
-- counts: renamed and cast only.
select
    run_id,
    account,
    stream,
    status              as run_status,
    api_revision,
    windows_planned,
    windows_loaded,
    windows_completed,
    windows_failed,
    windows_held,
    requests,
    rows_fetched,
    rows_inserted,
    rows_updated,
    rows_deleted,
    rows_rejected
from {{ source('etl', 'run_streams') }}
