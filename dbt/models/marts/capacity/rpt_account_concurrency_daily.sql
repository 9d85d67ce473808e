-- Channel load per account per UTC day, from the call legs themselves (fct_calls), never summed from
-- trunks: a leg occupies a channel over [called_at, ended_at) (ends sort before starts at the same
-- instant, so a leg ending as another starts is not concurrent with it; legs without talk time
-- occupy nothing). peak_concurrent_legs is the most legs of the account in progress at one instant
-- of the day: a sweep (+1 at each start, −1 at each end) over the account's legs, with a marker at
-- each day's start carrying in the legs still in progress from the day before. erlangs = the day's
-- talk seconds (legs split at midnight) / 86,400; the busy hour is the clock hour with the most
-- talk seconds, busy_hour_erlangs = its seconds / 3,600.
--
-- Summing rpt_call_volume_hourly.peak_concurrent_legs over trunks (or hours) overstates this peak:
-- trunks peak at different instants.
--
-- Incremental (delete+insert by call_date): a build re-builds the days from macro
-- settle_window_start (its latest day − var settle_days), reading the legs started up to var
-- max_call_hours (default 24) before the window, so legs carried in over midnight are whole.
-- `--full-refresh` rebuilds every day.
{{
    config(
        materialized='incremental',
        unique_key='call_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        post_hook=['{{ analyze_if_stale(this) }}', {'sql': "{{ primary_key(this, ['call_date', 'account']) }}", 'transaction': false}],
        indexes=[{'columns': ['call_date']}],
    )
}}
{%- if is_incremental() -%}
{%- set window_start = settle_window_start(this) -%}
{%- set window_start_at -%}
    ({{ window_start }})::timestamp at time zone 'UTC'
{%- endset -%}
{%- endif %}
with legs as (
    select account, called_at as started_at, ended_at
    from {{ ref('fct_calls') }}
    where called_at is not null
      and duration_seconds > 0
    {% if is_incremental() %}
      and call_date >= ({{ window_start_at }} - interval '1 hour' * {{ var('max_call_hours', 24) }})::date
      and ended_at >= {{ window_start_at }}
    {% endif %}
),
leg_days as (
    -- Every UTC day a leg is in progress on: the days whose start gets a carry-in marker.
    select distinct l.account, d::date as call_date
    from legs as l
    cross join lateral generate_series(
        date_trunc('day', l.started_at at time zone 'UTC'),
        date_trunc('day', (l.ended_at - interval '1 microsecond') at time zone 'UTC'),
        interval '1 day'
    ) as d
),
events as (
    -- kind orders the events of one instant: ends (0), then the day marker (1), then starts (2).
    select account, ended_at as at, 0 as kind, -1 as delta from legs
    union all
    select account, call_date::timestamp at time zone 'UTC' as at, 1 as kind, 0 as delta from leg_days
    union all
    select account, started_at as at, 2 as kind, 1 as delta from legs
),
levels as (
    select
        account,
        at,
        kind,
        sum(delta) over (
            partition by account order by at, kind
            rows between unbounded preceding and current row
        )                                                           as in_progress
    from events
),
peaks as (
    -- The level after each start and at each day's start marker; the first instant of the day's peak.
    select distinct on (account, call_date)
        account,
        call_date,
        in_progress                                                 as peak_concurrent_legs,
        at                                                          as peak_at
    from (
        select account, (at at time zone 'UTC')::date as call_date, at, in_progress
        from levels
        where kind in (1, 2)
    ) as l
    order by account, call_date, in_progress desc, at
),
segments as (
    -- Each leg split at the UTC hours it spans: its talk seconds inside each hour.
    select
        l.account,
        h                                                           as hour_start_at,
        extract(epoch from least(l.ended_at, h + interval '1 hour') - greatest(l.started_at, h))
                                                                    as seconds_in_hour
    from legs as l
    cross join lateral generate_series(
        date_trunc('hour', l.started_at),
        date_trunc('hour', l.ended_at - interval '1 microsecond'),
        interval '1 hour'
    ) as h
),
hours as (
    select account, hour_start_at, sum(seconds_in_hour) as talk_seconds
    from segments
    group by 1, 2
),
busy_hours as (
    select distinct on (account, call_date)
        account,
        call_date,
        hour_start_at                                               as busy_hour_start_at,
        talk_seconds                                                as busy_hour_talk_seconds
    from (select *, (hour_start_at at time zone 'UTC')::date as call_date from hours) as h
    order by account, call_date, talk_seconds desc, hour_start_at
),
days as (
    select account, (hour_start_at at time zone 'UTC')::date as call_date, sum(talk_seconds) as talk_seconds
    from hours
    group by 1, 2
)
select
    p.call_date,
    p.account,
    p.peak_concurrent_legs,
    p.peak_at,
    d.talk_seconds,
    d.talk_seconds / 86400.0                                        as erlangs,
    b.busy_hour_start_at,
    b.busy_hour_talk_seconds,
    b.busy_hour_talk_seconds / 3600.0                               as busy_hour_erlangs
from peaks as p
join days as d
    on d.account = p.account and d.call_date = p.call_date
join busy_hours as b
    on b.account = p.account and b.call_date = p.call_date
{% if is_incremental() %}
where p.call_date >= {{ window_start }}
{% endif %}
