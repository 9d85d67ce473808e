-- Daily call volume and cost per account, direction and destination. Numerators and denominators
-- are stored (answered_legs and legs) so BI can re-aggregate ratios correctly. Costs sum the
-- legs whose cost is known; missing_charge_count counts the billable legs that came without a
-- charge (macro charge_is_missing: their cost is unknown and not in the sums) and
-- estimated_missing_charge_usd what they would have cost at their rate. Read from fct_calls (the
-- same legs as int_calls_costed once built), so its days follow the fact's settle window.
--
-- Incremental (delete+insert by call_date): a build re-builds the days from macro settle_window_start
-- (the latest day built here − var settle_days), every day fct_calls can have re-processed since;
-- older days are final. `--full-refresh` rebuilds every day.
{{
    config(
        materialized='incremental',
        unique_key='call_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        post_hook='analyze {{ this }}',
        indexes=[{'columns': ['call_date']}],
    )
}}
select
    account,
    call_date,
    direction,
    coalesce(destination, '(none)')                 as destination,
    count(*)                                        as legs,
    count(*) filter (where is_answered)             as answered_legs,
    sum(duration_seconds)                           as duration_seconds,
    sum(billed_minutes)                             as billed_minutes,
    coalesce(sum(charge_usd), 0)                    as charge_usd,
    coalesce(sum(forward_fee_usd), 0)               as forward_fee_usd,
    coalesce(sum(total_cost_usd), 0)                as total_cost_usd,
    count(*) filter (where is_charge_missing)       as missing_charge_count,
    coalesce(sum(estimated_missing_charge_usd), 0)  as estimated_missing_charge_usd
from {{ ref('fct_calls') }}
{% if is_incremental() %}
where call_date >= {{ settle_window_start(this, requires=['missing_charge_count']) }}
{% endif %}
group by 1, 2, 3, 4
