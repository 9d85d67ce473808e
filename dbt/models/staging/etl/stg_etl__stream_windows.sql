-- One row per (account, stream, UTC day) of every dated window the loader read: when it was last
-- loaded and whether a read settled it (etl.stream_state holds the settled windows). Days of
-- windows only; streams read without windows (full refreshes, lookups) have none.
with slice_days as (
    select
        s.account,
        s.stream,
        d::date                                     as window_date,
        s.run_id,
        s.status,
        s.settled,
        s.finished_at
    from {{ source('etl', 'run_slices') }} as s
    cross join lateral generate_series(s.window_start, s.window_end - 1, interval '1 day') as d
    where s.window_start is not null and s.window_end is not null
),
state_days as (
    select
        st.account,
        st.stream,
        d::date                                     as window_date,
        st.completed_at,
        st.read_at
    from {{ source('etl', 'stream_state') }} as st
    cross join lateral generate_series(st.window_start, st.window_end - 1, interval '1 day') as d
)
select
    coalesce(l.account, st.account)                 as account,
    coalesce(l.stream, st.stream)                   as stream,
    coalesce(l.window_date, st.window_date)         as window_date,
    l.loads,
    l.failed_reads,
    l.last_loaded_at,
    l.last_run_id,
    st.completed_at                                 as settled_at,
    st.read_at                                      as settling_read_at
from (
    select
        account,
        stream,
        window_date,
        -- A held read (etl.run_slices.status = 'held') wrote nothing: it counts as a failed read.
        count(*) filter (where status = 'succeeded')                        as loads,
        count(*) filter (where status in ('failed', 'held'))                as failed_reads,
        max(finished_at) filter (where status = 'succeeded')                as last_loaded_at,
        max(run_id)                                                         as last_run_id
    from slice_days
    group by 1, 2, 3
) as l
full join state_days as st
    on st.account = l.account and st.stream = l.stream and st.window_date = l.window_date
