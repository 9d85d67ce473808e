-- One row per billing ledger line: the product it bills (ledger_transaction_types seed; null for a
-- code the seed does not know, the line kept) and the direction of the money. The amount stays signed
-- as the platform sends it; charge_usd and credit_usd split it so BI can sum either side.
--
-- Incremental (delete+insert by transaction_date), like fct_messages: a build re-builds the days
-- from macro settle_window_start (the latest day built here − var settle_days), the days whose
-- lines' statuses the loader still re-reads (a ledger window settles like CDRs), reading the
-- landing table by its partitions of `date`; older days are final. built_at stamps the rows a
-- build wrote (the tests check the latest build's rows). Partitioned by month of
-- transaction_date (macros month_partitions); a line the platform moved to another day is deleted
-- from its old one (row_key; the moves the loader logged, landing_moves). `--full-refresh`
-- rebuilds every day.
{{
    config(
        materialized='incremental',
        unique_key='transaction_date',
        incremental_strategy='month_partitioned_delete_insert',
        partitioned_by_month=('transaction_date' if var('partition_facts', true) else none),
        row_key=['account', 'ledger_account', 'transaction_id'],
        landing_moves={'table': 'platform.transactions', 'key': ['ledger_account', 'transaction_id']},
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['transaction_date']}, {'columns': ['built_at']}],
        post_hook=[
            {'sql': "{{ primary_key(this, ['account', 'ledger_account', 'transaction_id']) }}", 'transaction': false},
            {'sql': "{{ name_month_partitions(this) }}", 'transaction': false},
        ],
    )
}}
with lines as (
    select * from {{ ref('stg_platform__transactions') }}
    {%- if is_incremental() %}
    where transacted_at >= ({{ settle_window_start(this, 'transaction_date') }})::timestamp at time zone 'UTC'
    {%- endif %}
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
    t.product                                                            as product,
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
    l.details,
    '{{ run_started_at.isoformat() }}'::timestamptz                      as built_at
from lines as l
left join types as t using (type_code)
