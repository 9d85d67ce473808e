-- One row per number of a validation request: renamed and cast; a field the request's type did
-- not return stays null.
select
    _account                as account,
    token                   as validation_token,
    phone_number,
    valid                   as is_valid,
    country_code,
    e164_format,
    national_format,
    ported                  as is_ported,
    nullif(mcc, '')         as mcc,
    nullif(mnc, '')         as mnc,
    number_type,
    nullif(carrier_name, '') as carrier_name,
    risky_destination       as is_risky_destination,
    unallocated_range       as is_unallocated_range,
    reachable               as is_reachable,
    roaming                 as is_roaming,
    timezone                as utc_offset,
    charge::numeric         as charge_usd,
    error_code,
    _extracted_at           as extracted_at
from {{ source('platform', 'validation_results') }}
