-- One row per validation request (token) with the time it is dated by. The platform does not say
-- when a validation was made. It is dated by when the loader first tracked its token
-- (etl.tracked_requests.first_seen_at: the submission time given to `telecom-etl track validation
-- <token> --submitted-at`, or the time the token was tracked), never later than the first load of
-- any of its results; a token with no tracked request is dated by that first load.
with first_loaded as (
    select account, validation_token, min(extracted_at) as first_loaded_at
    from {{ ref('stg_platform__validation_results') }}
    group by 1, 2
),

tracked as (
    select account, external_id as validation_token, first_seen_at
    from {{ ref('stg_etl__tracked_requests') }}
    where request_kind = 'validation'
)

select
    l.account,
    l.validation_token,
    least(coalesce(t.first_seen_at, l.first_loaded_at), l.first_loaded_at)                           as validated_at,
    (least(coalesce(t.first_seen_at, l.first_loaded_at), l.first_loaded_at) at time zone 'UTC')::date as validated_date
from first_loaded as l
left join tracked as t using (account, validation_token)
