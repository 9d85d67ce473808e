-- One row per invoice × product: what the warehouse's usage data says the invoice's period cost,
-- per billed product, plus one `invoice_total` row comparing the invoiced amount with the sum.
-- The platform's invoice is a single amount (no lines), so only the total row has an invoiced
-- amount and a variance; product rows show where the usage comes from.
{%- set products = ['calls', 'forward_fees', 'transcriptions', 'validations', 'messages', 'number_fees'] %}
with invoices as (
    select * from {{ ref('stg_platform__invoices') }}
),

products as (
    select product, ordinal as product_order
    from unnest(array['{{ products | join("', '") }}']) with ordinality as p (product, ordinal)
),

daily_usage as (
    select i.account, i.invoice_id, u.product, sum(u.usage_usd) as usage_usd
    from invoices as i
    join {{ ref('rpt_usage_daily') }} as u
        on u.account = i.account
       and u.usage_date between i.period_start_date and i.period_end_date
    group by 1, 2, 3
),

number_fees as (
    -- Every number added before the period ends is billed one monthly fee for the period.
    select i.account, i.invoice_id, 'number_fees' as product, sum(n.monthly_fee_usd) as usage_usd
    from invoices as i
    join {{ ref('int_numbers_billed') }} as n
        on n.account = i.account
       and n.added_at < (i.period_end_date + 1)::timestamp at time zone 'UTC'
    group by 1, 2
),

product_lines as (
    select
        i.account,
        i.invoice_id,
        i.period_start_date,
        i.period_end_date,
        p.product,
        p.product_order,
        coalesce(u.usage_usd, 0)  as usage_usd,
        null::numeric             as invoiced_usd
    from invoices as i
    cross join products as p
    left join (select * from daily_usage union all select * from number_fees) as u
        on u.account = i.account and u.invoice_id = i.invoice_id and u.product = p.product
),

total_lines as (
    select
        i.account,
        i.invoice_id,
        i.period_start_date,
        i.period_end_date,
        'invoice_total'           as product,
        {{ products | length + 1 }} as product_order,
        sum(l.usage_usd)          as usage_usd,
        i.amount_usd              as invoiced_usd
    from invoices as i
    join product_lines as l using (account, invoice_id)
    group by i.account, i.invoice_id, i.period_start_date, i.period_end_date, i.amount_usd
),

lines as (
    select * from product_lines
    union all
    select * from total_lines
)

select
    account,
    invoice_id,
    period_start_date,
    period_end_date,
    product,
    product_order,
    product = 'invoice_total'                                          as is_invoice_total,
    usage_usd,
    invoiced_usd,
    invoiced_usd - usage_usd                                           as variance_usd,
    round(100 * (invoiced_usd - usage_usd) / nullif(usage_usd, 0), 4)  as variance_pct,
    case
        when invoiced_usd is not null
            then abs(invoiced_usd - usage_usd) <= {{ var('invoice_variance_tolerance_usd', 0.005) }}
    end                                                                as is_within_tolerance
from lines
