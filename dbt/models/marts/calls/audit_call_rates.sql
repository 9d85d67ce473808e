-- Rate audit: billable call legs (answered, with talk time, a rate and a charge) whose charge is
-- not per_minute_usd × billed minutes under ANY of the billing increments the platform could
-- apply: 60/60 (every started minute; what the platform documents and bills today), 30/6 (a first
-- 30 s block, then 6 s steps), 6/6 and 1/1 (per second). A leg listed here was charged something
-- no increment explains (a rate change, a surcharge, a billing error). Tolerance: var
-- `rate_audit_tolerance_usd` (default 0.0001 USD).
--
-- Incremental: a build deletes and re-audits the days fct_calls re-processes, from fct_calls'
-- latest day − var settle_days (macro settle_window_start on fct_calls: this table lists
-- exceptions only, so its own latest day says nothing, and a day whose last exception was
-- corrected must still be emptied — hence the pre_hook, not delete+insert by key); undated legs
-- are re-audited every time, as fct_calls re-processes them. Build it with
-- fct_calls (every `transform`, or `--select fct_calls+`); `--full-refresh` re-audits every day.
{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='sync_all_columns',
        pre_hook="{% if is_incremental() %}delete from {{ this }} where call_date is null or call_date >= {{ settle_window_start(ref('fct_calls')) }}{% endif %}",
        indexes=[{'columns': ['call_date']}],
    )
}}
{%- set tolerance = var('rate_audit_tolerance_usd', 0.0001) %}
with legs as (
    select
        account,
        direction,
        call_uuid,
        call_date,
        destination_country,
        placing_trunk_name,
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
      {% if is_incremental() %}
      and (call_date is null or call_date >= {{ settle_window_start(ref('fct_calls')) }})
      {% endif %}
)
select
    *,
    charge_usd - expected_60_60_usd                                                 as difference_60_60_usd
from legs
where not (abs(charge_usd - expected_60_60_usd) <= {{ tolerance }}
        or abs(charge_usd - expected_30_6_usd) <= {{ tolerance }}
        or abs(charge_usd - expected_6_6_usd) <= {{ tolerance }}
        or abs(charge_usd - expected_1_1_usd) <= {{ tolerance }})
