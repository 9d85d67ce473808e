-- Daily call volume and cost per account, direction and destination. Numerators and denominators
-- are stored (answered_legs and legs) so BI can re-aggregate ratios correctly. Costs are macro
-- call_cost_measures: total_cost_usd = charge_usd + forward_fee_usd, the known parts, so a day
-- reconciles with rpt_usage_daily to the cent; missing_charge_count counts the billable legs that
-- came without a charge (macro charge_is_missing; partial_cost_legs of them still carry a forward
-- fee, counted) and estimated_missing_charge_usd what those charges would have been. Read from fct_calls (the
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
        post_hook=['{{ analyze_if_stale(this) }}', {'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
        indexes=[{'columns': ['call_date']}],
    )
}}
select
    account,
    call_date,
    direction,
    destination,
    count(*)                                        as legs,
    count(*) filter (where is_answered)             as answered_legs,
    sum(duration_seconds)                           as duration_seconds,
    sum(billed_minutes)                             as billed_minutes,
    {{ call_cost_measures(cost='total_cost_usd') | indent(4) | trim }},
    {{ grain_key(['account', 'call_date', 'direction', 'destination']) }}
from {{ ref('fct_calls') }}
{% if is_incremental() %}
where call_date >= {{ settle_window_start(this, requires=['partial_cost_legs', grain_key_column()]) }}
{% endif %}
group by 1, 2, 3, 4
