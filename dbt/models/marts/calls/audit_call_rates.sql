-- Rate audit: billable call legs (answered, with talk time, a rate and a charge) whose charge is
-- not per_minute_usd × billed minutes under ANY of the billing increments the platform could
-- apply: 60/60 (every started minute; what the platform documents and bills today), 30/6 (a first
-- 30 s block, then 6 s steps), 6/6 and 1/1 (per second). A leg listed here was charged something
-- no increment explains (a rate change, a surcharge, a billing error). Tolerance: var
-- `rate_audit_tolerance_usd` (default 0.0001 USD). `fitting_increment` in the underlying legs is
-- the first increment, in the order above, that explains the charge.
{%- set tolerance = var('rate_audit_tolerance_usd', 0.0001) %}
with legs as (
    select
        account,
        direction,
        call_uuid,
        call_date,
        destination_country,
        sip_trunk,
        duration_seconds,
        per_minute_usd,
        charge_usd,
        per_minute_usd * ceil(duration_seconds / 60.0) * 60 / 60.0                  as expected_60_60_usd,
        per_minute_usd * (case when duration_seconds <= 30 then 30
                               else 30 + ceil((duration_seconds - 30) / 6.0) * 6 end) / 60.0 as expected_30_6_usd,
        per_minute_usd * ceil(duration_seconds / 6.0) * 6 / 60.0                    as expected_6_6_usd,
        per_minute_usd * duration_seconds / 60.0                                    as expected_1_1_usd
    from {{ ref('fct_calls') }}
    where is_answered
      and duration_seconds > 0
      and per_minute_usd is not null
      and charge_usd is not null
),
fitted as (
    select
        *,
        case
            when abs(charge_usd - expected_60_60_usd) <= {{ tolerance }} then '60/60'
            when abs(charge_usd - expected_30_6_usd) <= {{ tolerance }} then '30/6'
            when abs(charge_usd - expected_6_6_usd) <= {{ tolerance }} then '6/6'
            when abs(charge_usd - expected_1_1_usd) <= {{ tolerance }} then '1/1'
        end                                                                         as fitting_increment
    from legs
)
select
    account,
    direction,
    call_uuid,
    call_date,
    destination_country,
    sip_trunk,
    duration_seconds,
    per_minute_usd,
    charge_usd,
    expected_60_60_usd,
    expected_30_6_usd,
    expected_6_6_usd,
    expected_1_1_usd,
    charge_usd - expected_60_60_usd                                                 as difference_60_60_usd
from fitted
where fitting_increment is null
