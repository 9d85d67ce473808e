-- Short-link clicks per account, day and utm_campaign, with distinct phones and links.
select
    account,
    click_date,
    utm_campaign,
    count(*)                      as clicks,
    count(distinct phone)         as distinct_phones,
    count(distinct link_hash)     as distinct_links
from {{ ref('stg_platform__short_link_metrics') }}
group by 1, 2, 3
