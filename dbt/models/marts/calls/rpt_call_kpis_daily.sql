-- Call KPIs per UTC call day × account × direction × destination country × SIP trunk. Every ratio
-- comes with its numerator and denominator so BI can re-aggregate (sum both, then divide).
-- Attempts count root calls (a call and its child legs are one attempt); minutes and cost count
-- every leg. NER counts the dispositions where the network did its job: answered, busy, noanswer
-- (the callee decided); only `failed` is a network failure. Costs are the known costs (macro
-- call_cost_measures: cost_usd = charge_usd + forward_fee_usd): legs missing their charge (macro
-- charge_is_missing) are counted in missing_charge_count and estimated in
-- estimated_missing_charge_usd, never summed as 0 without saying so; their forward fees are in
-- cost_usd (partial_cost_legs).
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
with calls as (
    select
        *,
        not is_child_leg                                        as is_root
    from {{ ref('fct_calls') }}
    {% if is_incremental() %}
    where call_date >= {{ settle_window_start(this, requires=['partial_cost_legs', grain_key_column()]) }}
    {% endif %}
)
select
    call_date,
    account,
    direction,
    destination_country,
    placing_trunk_name,
    {{ call_kpi_measures() | indent(4) | trim }},
    {{ grain_key(['call_date', 'account', 'direction', 'destination_country', 'placing_trunk_name']) }}
from calls
group by 1, 2, 3, 4, 5
