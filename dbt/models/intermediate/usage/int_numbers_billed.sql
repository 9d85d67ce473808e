-- One row per version of a number an account owned (dbt snapshot snap_numbers: every version the
-- loader's lists showed, the last one closed when the number left the list), with its monthly fee
-- and the span it was owned with that fee: owned_from .. owned_until (UTC; owned_until null while
-- the account still owns it). A month's number fees are those of the numbers owned then, not of
-- today's. The first version is owned from the platform's `added` (the history before the first
-- snapshot is that of the first version); a later one from when the transform first saw it.
-- Snapshot times are the transform's clock, stored without a zone: UTC, the warehouse's zone.
with versions as (
    select
        _account                                                as account,
        id                                                      as number_id,
        number,
        added                                                   as added_at,
        monthly_fee::numeric                                    as monthly_fee_usd,
        dbt_valid_from at time zone 'UTC'                       as valid_from,
        dbt_valid_to at time zone 'UTC'                         as valid_to,
        row_number() over (partition by _account, id order by dbt_valid_from) as version
    from {{ ref('snap_numbers') }}
)
select
    account,
    number_id,
    version,
    number,
    added_at,
    monthly_fee_usd,
    case when version = 1 then least(added_at, valid_from) else valid_from end as owned_from,
    valid_to                                                                  as owned_until
from versions
