-- One row per short-link click.
select
    _account                              as account,
    created_at                            as clicked_at,
    created_date                          as click_date,
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
