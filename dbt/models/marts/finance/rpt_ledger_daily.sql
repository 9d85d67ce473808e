-- One row per UTC day × ledger account × product of the billing ledger (fct_ledger_transactions):
-- the additive sums fct_invoices_reconciled compares per invoice period. ledger_usd is what the
-- lines charged net (charges positive, credits negative), charged_usd and credited_usd its two
-- sides apart; reverted lines apart (reverted_usd, reverted_lines), never in the others.
--
-- Incremental (delete+insert by transaction_date): a build re-builds the days from macro
-- settle_window_start (its latest day − var settle_days), the days fct_ledger_transactions
-- re-built since, read by its transaction_date index and partitions: the invoice reconciliation
-- then sums days, not every ledger line ever written, on every build.
{{
    config(
        materialized='incremental',
        unique_key='transaction_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['transaction_date']}, {'columns': ['ledger_account', 'transaction_date']}],
        post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
    )
}}
select
    transaction_date,
    ledger_account,
    product,
    coalesce(sum(-amount_usd) filter (where not is_reverted), 0)                       as ledger_usd,
    coalesce(sum(-amount_usd) filter (where not is_reverted and amount_usd < 0), 0)     as charged_usd,
    coalesce(sum(amount_usd) filter (where not is_reverted and amount_usd > 0), 0)      as credited_usd,
    count(*) filter (where not is_reverted)                                              as ledger_lines,
    coalesce(sum(-amount_usd) filter (where is_reverted), 0)                            as reverted_usd,
    count(*) filter (where is_reverted)                                                  as reverted_lines,
    {{ grain_key(['transaction_date', 'ledger_account', 'product']) }}
from {{ ref('fct_ledger_transactions') }}
{%- if is_incremental() %}
where transaction_date >= {{ settle_window_start(this, 'transaction_date', requires=[grain_key_column()]) }}
{%- endif %}
group by 1, 2, 3
