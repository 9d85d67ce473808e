-- One row per account × stream read by dated windows: the UTC range the loader has read, from the
-- first day of its earliest window to the latest instant a read covered, over the windows a read
-- loaded (stg_etl__run_slices, status succeeded) or settled (stg_etl__stream_state). A window is covered up
-- to its end, or up to the read when it was read before its end (today's window: the slice's
-- started_at on the run's clock; a settled window's read_at). Windows are whole UTC days, so a local
-- day of an account off UTC at either end of the range is only partly inside it (macro
-- is_partial_local_day). Gaps inside the range are not looked at (rpt_load_completeness shows
-- them). A few rows: one group per (account, stream).
select
    account,
    stream,
    min(window_start)::timestamp at time zone 'UTC'     as loaded_from_at,
    max(least(window_end::timestamp at time zone 'UTC', read_at)) as loaded_until_at
from (
    select account, stream, window_start, window_end, started_at as read_at
    from {{ ref('stg_etl__run_slices') }}
    where slice_status = 'succeeded' and window_start is not null and window_end is not null
    union all
    select account, stream, window_start, window_end, coalesce(read_at, settled_at)
    from {{ ref('stg_etl__stream_state') }}
) as windows
group by 1, 2
