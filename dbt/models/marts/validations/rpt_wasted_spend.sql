-- One row per UTC day × account × channel (call, message) × phone number whose latest validation
-- says invalid or unreachable: the calls placed and messages sent to it that day and what they
-- cost (call charge + forward fee; message charge + carrier fees), USD. A call the platform should
-- have billed but sent no charge for (macro charge_is_missing) counts as an attempt with an unknown
-- cost (missing_charge_count, estimated in estimated_missing_charge_usd), not as 0. A failed or
-- unanswered call, billed 0 or null by design, costs 0 and is not missing.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['charge_date', 'account', 'channel', 'phone_number']) }}", 'transaction': false}]) }}
with latest_verdicts as (
    select distinct on (account, phone)
        account, phone, validated_at, validated_date, is_valid, is_reachable
    from {{ ref('fct_number_validations') }}
    where phone is not null
    order by account, phone, validated_at desc, validation_token
),

bad_numbers as (
    select * from latest_verdicts where is_valid is false or is_reachable is false
),

charges as (
    select
        account,
        call_date                                         as charge_date,
        'call'                                            as channel,
        {{ phone_digits('to_number') }}                   as phone,
        case
            when is_charge_missing then null
            else coalesce(charge_usd, 0) + coalesce(forward_fee_usd, 0)
        end                                               as cost_usd,
        is_charge_missing,
        estimated_missing_charge_usd
    from {{ ref('stg_platform__cdrs') }}
    where direction = 'placed'
    union all
    select
        account,
        submitted_date,
        'message',
        {{ phone_digits('to_number') }},
        charge_usd + coalesce(carrier_fees_usd, 0),
        false,
        0
    from {{ ref('stg_platform__messages') }}
    where direction = 'outbound'
)

select
    c.charge_date,
    c.account,
    c.channel,
    c.phone                                 as phone_number,
    b.is_valid,
    b.is_reachable,
    b.validated_date,
    c.charge_date > b.validated_date        as is_after_validation,
    count(*)                                as attempts,
    count(*) filter (where c.is_charge_missing) as missing_charge_count,
    coalesce(sum(c.estimated_missing_charge_usd), 0) as estimated_missing_charge_usd,
    coalesce(sum(c.cost_usd), 0)            as wasted_usd
from charges as c
join bad_numbers as b using (account, phone)
group by 1, 2, 3, 4, 5, 6, 7, 8
