-- One row per number the account owns, with its monthly fee: what a monthly invoice bills for
-- each number added before the end of its period. Read from the landing table (the numbers
-- staging belongs to the call marts); only id, number, added and monthly_fee are used.
select
    _account                            as account,
    id                                  as number_id,
    number,
    added                               as added_at,
    monthly_fee::numeric                as monthly_fee_usd
from {{ source('platform', 'numbers') }}
