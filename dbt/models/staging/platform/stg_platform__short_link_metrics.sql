-- One row per short-link click. `phone` is the clicker's phone number (the campaign's recipient who
-- opened the link); `click_ordinal` is the row's position within its UTC day as loaded.
select
    _account                              as account,
    created_date                          as click_date,
    _row_ordinal                          as click_ordinal,
    created_at                            as clicked_at,
    utm_campaign,
    link_hash,
    phone,
    operating_system,
    browser,
    language,
    latitude,
    longitude,
    user_id,
    _extracted_at                         as extracted_at
from {{ source('platform', 'short_link_metrics') }}
