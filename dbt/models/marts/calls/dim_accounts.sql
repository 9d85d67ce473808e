-- One row per account the warehouse holds data of (the names of the loader's config): how many
-- trunks and numbers it has, and the span of its calls (from rpt_call_kpis_daily: the legs of
-- fct_calls summed per day, far fewer rows to read), and the time zone its local dates are in.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account']) }}", 'transaction': false}]) }}
with calls as (
    select
        account,
        min(call_date)      as first_call_date,
        max(call_date)      as last_call_date,
        sum(leg_attempts)   as call_legs
    from {{ ref('rpt_call_kpis_daily') }}
    group by 1
),
trunks as (
    select account, count(*) as trunks from {{ ref('stg_platform__sip_trunks') }} group by 1
),
numbers as (
    select account, count(*) as numbers from {{ ref('stg_platform__numbers') }} group by 1
),
accounts as (
    select account from calls
    union
    select account from trunks
    union
    select account from numbers
)
select
    a.account,
    coalesce(z.time_zone, 'UTC') as time_zone,
    coalesce(t.trunks, 0)       as trunks,
    coalesce(n.numbers, 0)      as numbers,
    coalesce(c.call_legs, 0)    as call_legs,
    c.first_call_date,
    c.last_call_date
from accounts as a
left join calls as c using (account)
left join trunks as t using (account)
left join numbers as n using (account)
left join {{ ref('stg_etl__account_time_zones') }} as z using (account)
