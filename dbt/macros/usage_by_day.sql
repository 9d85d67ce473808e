{#- The body of a daily usage report: one row per day × account × product with usage (usage_usd,
    usage_items, missing_charge_count, estimated_missing_charge_usd), the products and how each is
    dated written once for rpt_usage_daily (UTC days, `usage_date`) and rpt_usage_daily_local
    (`local`: account-local days, `usage_local_date`, in the zone of stg_etl__account_time_zones):
      calls, forward_fees  fct_calls charge_usd / forward_fee_usd by call_date (call_local_date)
      transcriptions       stg_platform__transcriptions charge_usd, dated by the transcribed call's day in
                           fct_calls (the transcription's own call date, then its date, when the
                           call is not loaded)
      validations          stg_platform__validation_results charge_usd, by int_validations_dated
      messages             stg_platform__messages charge_usd + carrier_fees_usd, by submission day
    `window_start` (an incremental build): only the days from it, each source read by its UTC index
    from it (one UTC day earlier for local days: a local day starts at most a day before its UTC day). -#}
{% macro usage_by_day(window_start=none, local=false) -%}
{%- set day = 'usage_local_date' if local else 'usage_date' -%}
{%- set zone = 'z.time_zone' if local else "'UTC'" -%}
{%- set read_from = (window_start ~ ' - 1') if local else window_start -%}
with calls as (
    select account, {{ 'call_local_date' if local else 'call_date' }} as {{ day }}, charge_usd, forward_fee_usd,
           is_charge_missing, estimated_missing_charge_usd
    from {{ ref('fct_calls') }}
    {% if window_start is not none %}
    where call_date >= {{ read_from }}
    {% endif %}
),

transcriptions as (
    -- A call's legs share its uuid: the call is found by fct_calls' key index, either direction.
    select
        t.account,
        coalesce(
            (select min(c.{{ 'call_local_date' if local else 'call_date' }})
             from {{ ref('fct_calls') }} as c
             where c.account = t.account
               and c.direction in ('placed', 'received')
               and c.call_uuid = coalesce(t.call_uuid, t.request_id)),
            {{ local_date('t.call_at', zone) }},
            {{ local_date('t.transcribed_at', zone) }}
        )                                                                            as {{ day }},
        t.charge_usd::numeric                                                        as charge_usd
    from {{ ref('stg_platform__transcriptions') }} as t
    {% if local %}
    left join {{ ref('stg_etl__account_time_zones') }} as z on z.account = t.account
    {% endif %}
),

validations as (
    select r.account, {{ local_date('v.validated_at', zone) if local else 'v.validated_date' }} as {{ day }}, r.charge_usd
    from {{ ref('stg_platform__validation_results') }} as r
    join {{ ref('int_validations_dated') }} as v using (account, validation_token)
    {% if local %}
    left join {{ ref('stg_etl__account_time_zones') }} as z using (account)
    {% endif %}
),

messages as (
    select account, {{ local_date('submitted_at', zone) if local else 'submitted_date' }} as {{ day }},
           charge_usd + coalesce(carrier_fees_usd, 0) as cost_usd
    from {{ ref('stg_platform__messages') }}
    {% if local %}
    left join {{ ref('stg_etl__account_time_zones') }} as z using (account)
    {% endif %}
    {% if window_start is not none %}
    where submitted_at >= ({{ read_from }})::timestamp at time zone 'UTC'
    {% endif %}
),

usage as (
    -- Only calls have missing charges (macro charge_is_missing); every other product's are 0.
    select
        account, {{ day }}, 'calls' as product, sum(charge_usd) as usage_usd, count(*) as usage_items,
        count(*) filter (where is_charge_missing) as missing_charge_count,
        sum(estimated_missing_charge_usd) as estimated_missing_charge_usd
    from calls group by 1, 2
    union all
    select account, {{ day }}, 'forward_fees', sum(forward_fee_usd), count(forward_fee_usd), 0, 0
    from calls group by 1, 2
    union all
    select account, {{ day }}, 'transcriptions', sum(charge_usd), count(*), 0, 0
    from transcriptions group by 1, 2
    union all
    select account, {{ day }}, 'validations', sum(charge_usd), count(*), 0, 0
    from validations group by 1, 2
    union all
    select account, {{ day }}, 'messages', sum(cost_usd), count(*), 0, 0
    from messages group by 1, 2
)

select
    {{ day }}, account, product, usage_usd, usage_items, missing_charge_count,
    coalesce(estimated_missing_charge_usd, 0) as estimated_missing_charge_usd
from usage
{% if window_start is not none %}
where {{ day }} >= {{ window_start }}
{% endif %}
{%- endmacro %}
