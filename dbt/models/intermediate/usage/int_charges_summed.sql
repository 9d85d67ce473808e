-- What the account used per UTC day and billed product, in USD, from the loaded platform data:
-- the same charges an invoice bills (see fct_invoices_reconciled). Number fees are monthly, not
-- daily: they come from int_numbers_billed.
-- Transcriptions are read from the landing table here (not a staging model) until the call marts'
-- staging of transcriptions is merged; only `charge` and the call they belong to are used.
with calls as (
    select account, call_date as usage_date, charge_usd, forward_fee_usd
    from {{ ref('stg_platform__cdrs') }}
),

call_days as (
    -- A call's legs share its uuid; a transcription is dated by its call's start.
    select account, call_uuid, min(call_date) as call_date
    from {{ ref('stg_platform__cdrs') }}
    group by 1, 2
),

transcriptions as (
    select
        t._account                                                                   as account,
        coalesce(c.call_date, (t.call_date at time zone 'UTC')::date,
                 (t.transcription_date at time zone 'UTC')::date)                    as usage_date,
        t.charge::numeric                                                            as charge_usd
    from {{ source('platform', 'transcriptions') }} as t
    left join call_days as c
        on c.account = t._account
       and c.call_uuid = coalesce(t.call_uuid, t.request_id)
),

validations as (
    select r.account, v.validated_date as usage_date, r.charge_usd
    from {{ ref('stg_platform__validation_results') }} as r
    join {{ ref('int_validations_dated') }} as v using (account, validation_token)
),

messages as (
    select account, submitted_date as usage_date, charge_usd + coalesce(carrier_fees_usd, 0) as cost_usd
    from {{ ref('stg_platform__messages') }}
)

select account, usage_date, 'calls' as product, sum(charge_usd) as usage_usd, count(*) as usage_items
from calls group by 1, 2
union all
select account, usage_date, 'forward_fees', sum(forward_fee_usd), count(forward_fee_usd)
from calls group by 1, 2
union all
select account, usage_date, 'transcriptions', sum(charge_usd), count(*)
from transcriptions group by 1, 2
union all
select account, usage_date, 'validations', sum(charge_usd), count(*)
from validations group by 1, 2
union all
select account, usage_date, 'messages', sum(cost_usd), count(*)
from messages group by 1, 2
