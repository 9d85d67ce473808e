{#- The measures of the daily call KPI reports, over legs of fct_calls with `is_root` (not
    is_child_leg): rpt_call_kpis_daily (UTC days) and rpt_call_kpis_daily_local (account-local days)
    both select them, so each name means the same in both. -#}
{% macro call_kpi_measures() -%}
    count(*) filter (where is_root)                                             as root_call_attempts,
    count(*)                                                                    as leg_attempts,
    count(*) filter (where is_root and is_answered)                             as answered_calls,
    count(*) filter (where is_answered)                                         as answered_legs,
    count(*) filter (where is_root and disposition in ('answered', 'busy', 'noanswer'))
                                                                                as network_effective_calls,
    count(*) filter (where is_root and disposition = 'failed')                  as failed_calls,
    {{ ratio("count(*) filter (where is_root and is_answered)", "count(*) filter (where is_root)") }}
                                                                                as asr,
    {{ ratio("count(*) filter (where is_root and disposition in ('answered', 'busy', 'noanswer'))",
             "count(*) filter (where is_root)") }}                             as ner,
    coalesce(sum(duration_seconds) filter (where is_root and is_answered), 0)   as answered_duration_seconds,
    {{ ratio("sum(duration_seconds) filter (where is_root and is_answered)",
             "count(*) filter (where is_root and is_answered)") }}             as acd_seconds,
    coalesce(sum(duration_seconds), 0)                                          as duration_seconds,
    coalesce(sum(duration_seconds), 0) / 60.0                                   as minutes,
    coalesce(sum(billed_minutes), 0)                                            as billed_minutes,
    coalesce(sum(billed_minutes) filter (where not is_charge_missing), 0)       as costed_billed_minutes,
    {{ call_cost_measures() }},
    {{ ratio("sum(total_cost_usd)", "sum(billed_minutes) filter (where not is_charge_missing)") }}
                                                                                as cost_per_minute_usd,
    {{ ratio("sum(total_cost_usd)", "count(*) filter (where is_root and is_answered)") }}
                                                                                as cost_per_answered_call_usd,
    count(*) filter (where answered_by is not null)                             as machine_detection_checked_calls,
    count(*) filter (where answered_by = 'machine')                             as machine_answered_calls,
    {{ ratio("count(*) filter (where answered_by = 'machine')", "count(*) filter (where answered_by is not null)") }}
                                                                                as machine_detection_rate,
    count(*) filter (where has_recording)                                       as recorded_legs,
    {{ ratio("count(*) filter (where has_recording)", "count(*) filter (where is_answered)") }}
                                                                                as recording_rate
{%- endmacro %}
