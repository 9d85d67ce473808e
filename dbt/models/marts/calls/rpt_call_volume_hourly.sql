-- Traffic per UTC hour × account × trunk (the trunk that carried the leg: placed legs on their
-- trunk, received calls on the trunk they were forwarded to; NULL otherwise). A leg occupies a
-- channel from called_at for duration_seconds; a leg crossing an hour boundary is split, so
-- call_seconds of an hour are exactly the seconds of talk inside it and erlangs = call_seconds / 3600.
-- peak_concurrent_legs: the most legs in progress at one instant of the hour (legs carried in
-- from the hour before included).
--
-- Incremental (delete+insert by call_date): a build re-builds the hours of the days from macro
-- settle_window_start — the latest day with calls started in it (a leg crossing midnight adds an
-- hour to the next day) − var settle_days — every day fct_calls can have re-processed since; it
-- reads the legs still in progress at that day's start too, so carried-in legs, split seconds
-- and peaks of its first hours are whole. Those legs are found by the call_date index among the
-- legs started at most var max_call_hours (default 24) before the window; fct_calls' tests fail
-- on a longer leg. `--full-refresh` rebuilds every hour.
{{
    config(
        materialized='incremental',
        unique_key='call_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        post_hook=['{{ analyze_if_stale(this) }}', {'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
        indexes=[{'columns': ['call_date']}],
    )
}}
{%- if is_incremental() -%}
{%- set window_start = settle_window_start(this, filter='legs > 0', requires=[grain_key_column()]) -%}
{%- set window_start_at -%}
    ({{ window_start }})::timestamp at time zone 'UTC'
{%- endset -%}
{%- endif %}
with legs as (
    select
        account,
        trunk_name,
        call_uuid,
        direction,
        called_at                           as started_at,
        ended_at,
        duration_seconds,
        is_answered
    from {{ ref('fct_calls') }}
    where called_at is not null
    {% if is_incremental() %}
      and call_date >= ({{ window_start_at }} - interval '1 hour' * {{ var('max_call_hours', 24) }})::date
      and ended_at >= {{ window_start_at }}
    {% endif %}
),
segments as (
    select
        l.account,
        l.trunk_name,
        l.started_at,
        l.is_answered,
        h                                                       as hour_start_at,
        extract(epoch from
            least(l.ended_at, h + interval '1 hour') - greatest(l.started_at, h)
        )                                                       as seconds_in_hour
    from legs as l
    cross join lateral generate_series(
        date_trunc('hour', l.started_at),
        date_trunc('hour', l.ended_at - case when l.duration_seconds > 0 then interval '1 microsecond' else interval '0' end),
        interval '1 hour'
    ) as h
),
events as (
    -- +1 when a leg with talk time starts, −1 when it ends; ends sort first at the same instant.
    select account, trunk_name, started_at as at, 1 as delta from legs where duration_seconds > 0
    union all
    select account, trunk_name, ended_at as at, -1 as delta from legs where duration_seconds > 0
),
levels as (
    select
        account,
        trunk_name,
        date_trunc('hour', at)                                  as hour_start_at,
        delta,
        sum(delta) over (
            partition by account, trunk_name order by at, delta
            rows between unbounded preceding and current row
        )                                                       as in_progress
    from events
),
event_peaks as (
    select account, trunk_name, hour_start_at, max(in_progress) as peak
    from levels
    where delta = 1
    group by 1, 2, 3
),
hours as (
    select
        account,
        trunk_name,
        hour_start_at,
        count(*) filter (where started_at >= hour_start_at)                         as legs,
        count(*) filter (where started_at >= hour_start_at and is_answered)         as answered_legs,
        count(*) filter (where started_at < hour_start_at)                          as carried_in_legs,
        sum(seconds_in_hour)                                                        as call_seconds
    from segments
    group by 1, 2, 3
)
select
    h.hour_start_at,
    (h.hour_start_at at time zone 'UTC')::date                  as call_date,
    extract(hour from h.hour_start_at at time zone 'UTC')::integer as call_hour,
    h.account,
    h.trunk_name,
    h.legs,
    h.answered_legs,
    h.carried_in_legs,
    h.call_seconds,
    h.call_seconds / 60.0                                       as minutes,
    h.call_seconds / 3600.0                                     as erlangs,
    greatest(h.carried_in_legs, coalesce(p.peak, 0))            as peak_concurrent_legs,
    {{ grain_key(['h.hour_start_at', 'h.account', 'h.trunk_name']) }}
from hours as h
left join event_peaks as p
    on p.account = h.account and p.trunk_name is not distinct from h.trunk_name and p.hour_start_at = h.hour_start_at
{% if is_incremental() %}
where h.hour_start_at >= {{ window_start_at }}
{% endif %}
