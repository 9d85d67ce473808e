-- One row per monthly statement.
select
    _account        as account,
    id              as invoice_id,
    from_date       as period_start_date,
    to_date         as period_end_date,
    amount          as amount_usd,
    _extracted_at   as extracted_at
from {{ source('platform', 'invoices') }}
