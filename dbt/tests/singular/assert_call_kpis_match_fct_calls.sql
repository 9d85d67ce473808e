-- Report totals equal fact totals: per account and day, rpt_call_kpis_daily holds exactly the legs,
-- root calls, answered calls, talk seconds, billed minutes, missing charges (count and estimate) and cost of fct_calls.
-- Returns the (account, call_date) pairs that differ.
--
-- Checked from the first day fct_calls' latest build wrote (every day after a `--full-refresh`; the
-- settle window after an incremental build): older days of both models were compared by the build
-- that wrote them and have not changed since. The fact side reads that window by its call_date index.
{#- The first day as a literal, so both sides read the window by their call_date index. -#}
{%- set first_day = latest_build_first_day(ref('fct_calls'), 'call_date') %}
with facts as (
    select
        account,
        call_date,
        count(*)                                                as legs,
        count(*) filter (where not is_child_leg)                as roots,
        count(*) filter (where not is_child_leg and is_answered) as answered,
        coalesce(sum(duration_seconds), 0)                      as seconds,
        coalesce(sum(billed_minutes), 0)                        as billed_minutes,
        count(*) filter (where is_charge_missing)               as missing,
        coalesce(sum(estimated_missing_charge_usd), 0)          as missing_usd,
        coalesce(sum(total_cost_usd), 0)                        as cost
    from {{ ref('fct_calls') }}
    where call_date >= {{ first_day }}
    group by 1, 2
),
report as (
    select
        account,
        call_date,
        sum(leg_attempts)           as legs,
        sum(root_call_attempts)     as roots,
        sum(answered_calls)         as answered,
        sum(duration_seconds)       as seconds,
        sum(billed_minutes)         as billed_minutes,
        sum(missing_charge_count)   as missing,
        sum(estimated_missing_charge_usd) as missing_usd,
        sum(cost_usd)               as cost
    from {{ ref('rpt_call_kpis_daily') }}
    where call_date >= {{ first_day }}
    group by 1, 2
)
select *
from facts
full join report using (account, call_date)
where facts.legs is distinct from report.legs
   or facts.roots is distinct from report.roots
   or facts.answered is distinct from report.answered
   or facts.seconds is distinct from report.seconds
   or facts.billed_minutes is distinct from report.billed_minutes
   or facts.missing is distinct from report.missing
   or facts.missing_usd is distinct from report.missing_usd
   or facts.cost is distinct from report.cost
