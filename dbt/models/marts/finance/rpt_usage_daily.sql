-- One row per UTC day × account × product with usage: what the account spent that day as the
-- platform bills it (the daily products of fct_invoices_reconciled; number fees are monthly and
-- appear there only). Month-to-date spend is a sum of these rows.
select
    usage_date,
    account,
    product,
    usage_usd,
    usage_items
from {{ ref('int_charges_summed') }}
