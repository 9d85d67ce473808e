-- One row per asynchronous number-validation request (token) the loader tracks.
select
    _account                as account,
    token                   as validation_token,
    status,
    status = 'success'      as is_complete,
    count                   as numbers_requested,
    pending                 as numbers_pending,
    _extracted_at           as extracted_at
from {{ source('platform', 'validations') }}
