-- One row per billing ledger line as the platform lists it: renamed and cast only. `amount_usd`
-- is signed as the platform sends it (negative = a charge, positive = a payment or credit).
select
    _account                                as account,
    ledger_account,
    sub_organization_id,
    id                                      as transaction_id,
    date                                    as transacted_at,
    (date at time zone 'UTC')::date         as transaction_date,
    amount                                  as amount_usd,
    balance_after                           as balance_after_usd,
    details,
    status,
    type                                    as type_code,
    show_invoice                            as is_shown_on_invoice,
    _extracted_at                           as extracted_at
from {{ source('platform', 'transactions') }}
