-- Each account's time zone as the loader's config sets it (written before every build).
select
    account,
    time_zone,
    updated_at      as time_zone_updated_at
from {{ source('etl', 'account_time_zones') }}
