-- Per account × stream × UTC day (of the windowed streams: cdrs, messages, short-link metrics, ...):
-- is the day loaded, is it settled (read at least the settling delay after its end, so final), and
-- may its figures still change. A day not settled may still gain late rows or changed charges: BI
-- should read it as provisional. The stream's latest run status comes from etl.run_streams (stg_etl__run_streams).
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'stream', 'window_date']) }}", 'transaction': false}]) }}
with latest_run as (
    select distinct on (account, stream)
        account,
        stream,
        run_id          as latest_run_id,
        run_status      as latest_run_status
    from {{ ref('stg_etl__run_streams') }}
    order by account, stream, run_id desc
)
select
    w.account,
    w.stream,
    w.window_date,
    coalesce(w.loads, 0) > 0 or w.settled_at is not null    as is_loaded,
    w.settled_at is not null                                as is_settled,
    w.settled_at is null                                    as may_change,
    w.settled_at,
    w.settling_read_at,
    w.last_loaded_at,
    coalesce(w.loads, 0)                                    as loads,
    coalesce(w.failed_reads, 0)                             as failed_reads,
    w.last_run_id,
    r.latest_run_id,
    r.latest_run_status
from {{ ref('stg_etl__stream_windows') }} as w
left join latest_run as r
    on r.account = w.account and r.stream = w.stream
