-- Each invoice against the charges the warehouse holds for its period. Only call charges and
-- forwarding fees are loaded today; unexplained_usd is what the invoice bills beyond them
-- (transcriptions, validations, number fees, or a billing discrepancy).
with calls as (
    select
        i.account,
        i.invoice_id,
        coalesce(sum(c.charge_usd), 0)      as call_charges_usd,
        coalesce(sum(c.forward_fee_usd), 0) as forward_fees_usd,
        count(c.call_uuid)                  as calls
    from {{ ref('stg_platform__invoices') }} as i
    left join {{ ref('int_calls_costed') }} as c
        on c.account = i.account
       and c.call_date between i.period_start_date and i.period_end_date
    group by 1, 2
)
select
    i.account,
    i.invoice_id,
    i.period_start_date,
    i.period_end_date,
    i.amount_usd                                                     as invoiced_usd,
    calls.calls,
    calls.call_charges_usd,
    calls.forward_fees_usd,
    calls.call_charges_usd + calls.forward_fees_usd                  as explained_usd,
    i.amount_usd - (calls.call_charges_usd + calls.forward_fees_usd) as unexplained_usd
from {{ ref('stg_platform__invoices') }} as i
join calls using (account, invoice_id)
