-- Call KPIs per UTC call day × account × direction × destination country × SIP trunk. Every ratio
-- comes with its numerator and denominator so BI can re-aggregate (sum both, then divide).
-- Attempts count root calls (a call and its child legs are one attempt); minutes and cost count
-- every leg. NER counts the dispositions where the network did its job: answered, busy, noanswer
-- (the callee decided); only `failed` is a network failure. Costs are the known costs: legs missing
-- their charge (macro charge_is_missing) are counted in missing_charge_count and estimated in
-- estimated_missing_charge_usd, never summed as 0 without saying so.
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
with calls as (
    select
        *,
        not is_child_leg                                        as is_root
    from {{ ref('fct_calls') }}
    {% if is_incremental() %}
    where call_date >= {{ settle_window_start(this, requires=['missing_charge_count']) }}
    {% endif %}
)
select
    call_date,
    account,
    direction,
    destination_country,
    coalesce(placing_trunk_name, '(none)')                                      as placing_trunk_name,
    count(*) filter (where is_root)                                             as root_call_attempts,
    count(*)                                                                    as leg_attempts,
    count(*) filter (where is_root and is_answered)                             as answered_calls,
    count(*) filter (where is_answered)                                         as answered_legs,
    count(*) filter (where is_root and disposition in ('answered', 'busy', 'noanswer'))
                                                                                as network_effective_calls,
    count(*) filter (where is_root and disposition = 'failed')                  as failed_calls,
    count(*) filter (where is_root and is_answered)::numeric
        / nullif(count(*) filter (where is_root), 0)                            as asr,
    count(*) filter (where is_root and disposition in ('answered', 'busy', 'noanswer'))::numeric
        / nullif(count(*) filter (where is_root), 0)                            as ner,
    coalesce(sum(duration_seconds) filter (where is_root and is_answered), 0)   as answered_duration_seconds,
    sum(duration_seconds) filter (where is_root and is_answered)::numeric
        / nullif(count(*) filter (where is_root and is_answered), 0)            as acd_seconds,
    coalesce(sum(duration_seconds), 0)                                          as duration_seconds,
    coalesce(sum(duration_seconds), 0) / 60.0                                   as minutes,
    coalesce(sum(billed_minutes), 0)                                            as billed_minutes,
    coalesce(sum(billed_minutes) filter (where not is_charge_missing), 0)       as costed_billed_minutes,
    count(*) filter (where is_charge_missing)                                   as missing_charge_count,
    coalesce(sum(estimated_missing_charge_usd), 0)                              as estimated_missing_charge_usd,
    coalesce(sum(charge_usd), 0)                                                as charge_usd,
    coalesce(sum(forward_fee_usd), 0)                                           as forward_fee_usd,
    coalesce(sum(total_cost_usd), 0)                                            as cost_usd,
    sum(total_cost_usd)
        / nullif(sum(billed_minutes) filter (where not is_charge_missing), 0)   as cost_per_minute_usd,
    sum(total_cost_usd)
        / nullif(count(*) filter (where is_root and is_answered), 0)            as cost_per_answered_call_usd,
    count(*) filter (where answered_by is not null)                             as machine_detection_checked_calls,
    count(*) filter (where answered_by = 'machine')                             as machine_answered_calls,
    count(*) filter (where answered_by = 'machine')::numeric
        / nullif(count(*) filter (where answered_by is not null), 0)            as machine_detection_rate,
    count(*) filter (where has_recording)                                       as recorded_legs,
    count(*) filter (where has_recording)::numeric
        / nullif(count(*) filter (where is_answered), 0)                        as recording_rate
from calls
group by 1, 2, 3, 4, 5
