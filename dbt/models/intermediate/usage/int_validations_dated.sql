-- One row per validation request (token) with the time it is dated by. The platform does not say
-- when a validation was made, so it is dated by the first load of any of its results: a nightly
-- that tracks tokens as they are made loads them the day their numbers are processed.
select
    r.account,
    r.validation_token,
    min(r.extracted_at)                             as validated_at,
    (min(r.extracted_at) at time zone 'UTC')::date  as validated_date
from {{ ref('stg_platform__validation_results') }} as r
group by 1, 2
