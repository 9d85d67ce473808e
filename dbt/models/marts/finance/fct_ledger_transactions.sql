-- One row per billing ledger line: the product it bills (ledger_transaction_types seed; codes the
-- seed does not know are `unknown`, kept) and the direction of the money. The amount stays signed
-- as the platform sends it; charge_usd and credit_usd split it so BI can sum either side.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'ledger_account', 'transaction_id']) }}", 'transaction': false}]) }}
with lines as (
    select * from {{ ref('stg_platform__transactions') }}
),

types as (
    select * from {{ ref('ledger_transaction_types') }}
)

select
    l.account,
    l.ledger_account,
    l.sub_organization_id,
    l.transaction_id,
    l.transacted_at,
    l.transaction_date,
    date_trunc('month', l.transaction_date)::date                        as transaction_month,
    l.type_code,
    t.type_name,
    coalesce(t.product, 'unknown')                                       as product,
    t.product in ('{{ usage_products() | join("', '") }}')
        and t.product is not null                                        as is_usage_product,
    case when l.amount_usd < 0 then 'charge' when l.amount_usd > 0 then 'credit' else 'none' end
                                                                         as money_direction,
    l.amount_usd,
    case when l.amount_usd < 0 then -l.amount_usd else 0 end             as charge_usd,
    case when l.amount_usd > 0 then l.amount_usd else 0 end              as credit_usd,
    l.balance_after_usd,
    l.status,
    l.status = 'Reverted'                                                as is_reverted,
    l.status in ('Committed', 'Reverted')                                as is_settled,
    l.is_shown_on_invoice,
    l.details
from lines as l
left join types as t using (type_code)
