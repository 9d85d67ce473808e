-- One row per phone number an account owns (the set the last run listed): renamed and cast.
select
    {{ numbers_staged_columns() }}
from {{ source('platform', 'numbers') }}
