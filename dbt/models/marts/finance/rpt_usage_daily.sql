-- One row per UTC day × account × product with usage: what the account spent that day as the
-- platform bills it (the daily products of fct_invoices_reconciled; number fees are monthly and
-- appear there only). Month-to-date spend is a sum of these rows. usage_usd sums the charges the
-- platform sent: a call leg missing its charge (macro charge_is_missing) adds nothing to it and is
-- counted in missing_charge_count, estimated in estimated_missing_charge_usd (calls rows only).
--   calls, forward_fees  fct_calls charge_usd / forward_fee_usd by call_date
--   transcriptions       platform.transcriptions charge, dated by the transcribed call's call_date
--                        (the transcription's own call date, then its date, when the call is not loaded)
--   validations          stg_platform__validation_results charge_usd, dated by int_validations_dated
--   messages             stg_platform__messages charge_usd + carrier_fees_usd, both directions, by
--                        submitted_date
--
-- Incremental (delete+insert by usage_date): a build re-builds the days from the latest day built
-- here − var usage_rebuild_days (default 10: a transcription is dated by its call's day and can
-- land up to transcription_max_age_days = 7 days later, after the 3 days calls take to settle).
-- Each source is read from that day on by its own index (fct_calls by call_date, messages by
-- submitted_at), so a nightly build reads days, not years. `--full-refresh` rebuilds every day
-- (after raising transcription_max_age_days, say).
{{
    config(
        materialized='incremental',
        unique_key='usage_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['usage_date']}],
        post_hook=[{'sql': "{{ primary_key(this, ['usage_date', 'account', 'product']) }}", 'transaction': false}],
    )
}}
{%- set window_start = settle_window_start(this, 'usage_date', days=var('usage_rebuild_days', 10), requires=['missing_charge_count']) if is_incremental() else none %}
with calls as (
    select account, call_date as usage_date, charge_usd, forward_fee_usd, is_charge_missing,
           estimated_missing_charge_usd
    from {{ ref('fct_calls') }}
    {% if is_incremental() %}
    where call_date >= {{ window_start }}
    {% endif %}
),

transcriptions as (
    -- A call's legs share its uuid: the call is found by fct_calls' key index, either direction.
    select
        t._account                                                                   as account,
        coalesce(
            (select min(c.call_date)
             from {{ ref('fct_calls') }} as c
             where c.account = t._account
               and c.direction in ('placed', 'received')
               and c.call_uuid = coalesce(t.call_uuid, t.request_id)),
            (t.call_date at time zone 'UTC')::date,
            (t.transcription_date at time zone 'UTC')::date
        )                                                                            as usage_date,
        t.charge::numeric                                                            as charge_usd
    from {{ source('platform', 'transcriptions') }} as t
),

validations as (
    select r.account, v.validated_date as usage_date, r.charge_usd
    from {{ ref('stg_platform__validation_results') }} as r
    join {{ ref('int_validations_dated') }} as v using (account, validation_token)
),

messages as (
    select account, submitted_date as usage_date, charge_usd + coalesce(carrier_fees_usd, 0) as cost_usd
    from {{ ref('stg_platform__messages') }}
    {% if is_incremental() %}
    where submitted_at >= ({{ window_start }})::timestamp at time zone 'UTC'
    {% endif %}
),

usage as (
    -- Only calls have missing charges (macro charge_is_missing); every other product's are 0.
    select
        account, usage_date, 'calls' as product, sum(charge_usd) as usage_usd, count(*) as usage_items,
        count(*) filter (where is_charge_missing) as missing_charge_count,
        sum(estimated_missing_charge_usd) as estimated_missing_charge_usd
    from calls group by 1, 2
    union all
    select account, usage_date, 'forward_fees', sum(forward_fee_usd), count(forward_fee_usd), 0, 0
    from calls group by 1, 2
    union all
    select account, usage_date, 'transcriptions', sum(charge_usd), count(*), 0, 0
    from transcriptions group by 1, 2
    union all
    select account, usage_date, 'validations', sum(charge_usd), count(*), 0, 0
    from validations group by 1, 2
    union all
    select account, usage_date, 'messages', sum(cost_usd), count(*), 0, 0
    from messages group by 1, 2
)

select
    usage_date, account, product, usage_usd, usage_items, missing_charge_count,
    coalesce(estimated_missing_charge_usd, 0) as estimated_missing_charge_usd
from usage
{% if is_incremental() %}
where usage_date >= {{ window_start }}
{% endif %}
