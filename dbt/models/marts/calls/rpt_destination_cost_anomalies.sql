-- Daily placed-call cost per account × destination_country, against its trailing 28 days (the 28
-- days before, days without calls counting as 0 USD): flagged when cost_usd > trailing mean + 3σ
-- (sample standard deviation), with at least var `anomaly_min_history_days` (default 7) days of
-- history and at least var `anomaly_min_cost_usd` (default 10.00 USD) spent that day, so a few
-- dollars to a rare destination on a quiet account are not an alarm. A toll-fraud signal: a
-- warn-level test lists them. The daily cost comes from rpt_call_kpis_daily (the same legs summed
-- per day, far fewer rows than fct_calls). cost_usd is the known cost: legs sent without their
-- charge (macro charge_is_missing) are counted in missing_charge_count and estimated in
-- estimated_missing_charge_usd beside it, so a day that looks cheap because charges are missing
-- says so. Legs to a number no numbering-plan prefix matches (destination_country null) are one
-- destination of their own: the spine joins its days null-safely.
--
-- Incremental (delete+insert by call_date): a build re-builds the days from macro
-- settle_window_start (its latest day − var settle_days), every day whose cost or trailing window
-- rpt_call_kpis_daily can have changed since, reading that report from 28 days before (the
-- trailing window) by its call_date index. The rows before are final. An account's spine starts at
-- its first day (the earliest of its rows here) and the destinations it ever called are those of
-- its latest day here (every destination has a row on every day of the account's spine), both
-- read by the (account, call_date) index: a nightly reads five weeks of daily costs, not the
-- history. A day re-built is what a `--full-refresh` builds for it (tested).
{{
    config(
        materialized='incremental',
        unique_key='call_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['call_date']}, {'columns': ['account', 'call_date']}],
        post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
    )
}}
{%- set window_start = settle_window_start(this, 'call_date', requires=[grain_key_column()]) if is_incremental() else none %}
with daily as (
    select
        account, destination_country, call_date, sum(cost_usd) as cost_usd, sum(leg_attempts) as call_legs,
        sum(missing_charge_count) as missing_charge_count,
        sum(estimated_missing_charge_usd) as estimated_missing_charge_usd
    from {{ ref('rpt_call_kpis_daily') }}
    where direction = 'placed' and call_date is not null
    {%- if is_incremental() %}
      and call_date >= {{ window_start }} - 28
    {%- endif %}
    group by 1, 2, 3
),
{%- if is_incremental() %}
built_accounts as (
    -- Each account's first and latest day here, by the (account, call_date) index.
    select a.account, b.first_date, b.latest_date
    from (select distinct account from daily) as a
    cross join lateral (
        select
            (select min(call_date) from {{ this }} as t where t.account = a.account) as first_date,
            (select max(call_date) from {{ this }} as t where t.account = a.account) as latest_date
    ) as b
),
spans as (
    -- The spine from the trailing window's first day (or the account's first day, if later).
    select d.account,
           greatest(least(min(d.call_date), min(b.first_date)), {{ window_start }} - 28) as first_date,
           max(d.call_date) as last_date
    from daily as d
    join built_accounts as b using (account)
    group by 1
),
pairs as (
    select distinct account, destination_country from daily
    union
    select t.account, t.destination_country
    from built_accounts as b
    join {{ this }} as t on t.account = b.account and t.call_date = b.latest_date
),
{%- else %}
spans as (
    select account, min(call_date) as first_date, max(call_date) as last_date
    from daily
    group by 1
),
pairs as (
    select distinct account, destination_country from daily
),
{%- endif %}
spine as (
    select d.account, d.destination_country, day::date as call_date
    from pairs as d
    join spans as s using (account)
    cross join lateral generate_series(s.first_date, s.last_date, interval '1 day') as day
),
filled as (
    select
        sp.account,
        sp.destination_country,
        sp.call_date,
        coalesce(d.cost_usd, 0)     as cost_usd,
        coalesce(d.call_legs, 0)    as call_legs,
        coalesce(d.missing_charge_count, 0)         as missing_charge_count,
        coalesce(d.estimated_missing_charge_usd, 0) as estimated_missing_charge_usd
    from spine as sp
    left join daily as d
        on d.account = sp.account
       and d.destination_country is not distinct from sp.destination_country
       and d.call_date = sp.call_date
),
with_history as (
    select
        *,
        count(*) over w             as trailing_days,
        avg(cost_usd) over w        as trailing_mean_usd,
        stddev_samp(cost_usd) over w as trailing_stddev_usd
    from filled
    window w as (partition by account, destination_country order by call_date rows between 28 preceding and 1 preceding)
)
select
    account,
    destination_country,
    call_date,
    call_legs,
    cost_usd,
    missing_charge_count,
    estimated_missing_charge_usd,
    trailing_days,
    trailing_mean_usd,
    trailing_stddev_usd,
    trailing_mean_usd + 3 * coalesce(trailing_stddev_usd, 0)    as threshold_usd,
    coalesce(
        trailing_days >= {{ var('anomaly_min_history_days', 7) }}
        and cost_usd >= {{ var('anomaly_min_cost_usd', 10.00) }}
        and cost_usd > trailing_mean_usd + 3 * coalesce(trailing_stddev_usd, 0),
        false
    )                                                           as is_anomaly,
    {{ grain_key(['call_date', 'account', 'destination_country']) }}
from with_history
{%- if is_incremental() %}
where call_date >= {{ window_start }}
{%- endif %}
