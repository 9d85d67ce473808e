-- Each invoice's invoice_total row holds the sum of its product rows' usage. Returns mismatches.
select account, invoice_id
from {{ ref('fct_invoices_reconciled') }}
group by 1, 2
having sum(usage_usd) filter (where is_invoice_total)
       is distinct from sum(usage_usd) filter (where not is_invoice_total)
   or count(*) filter (where is_invoice_total) <> 1
