-- One row per UTC validation day × account: numbers validated and what the lookups found. Every
-- rate's denominator is numbers_validated (stored, so BI can re-aggregate); cost per valid number
-- is the day's validation charges over its valid numbers.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['validated_date', 'account']) }}", 'transaction': false}]) }}
with counted as (
    select
        validated_date,
        account,
        count(*)                                        as numbers_validated,
        count(*) filter (where is_valid)                as valid_numbers,
        count(*) filter (where is_valid is false)       as invalid_numbers,
        count(*) filter (where is_reachable)            as reachable_numbers,
        count(*) filter (where is_ported)               as ported_numbers,
        count(*) filter (where is_roaming)              as roaming_numbers,
        count(*) filter (where is_lookup_error)         as lookup_errors,
        count(distinct validation_token)                as validation_requests,
        sum(charge_usd)                                 as cost_usd
    from {{ ref('fct_number_validations') }}
    group by 1, 2
)

select
    *,
    round(valid_numbers::numeric / numbers_validated, 4)      as valid_rate,
    round(reachable_numbers::numeric / numbers_validated, 4)  as reachable_rate,
    round(ported_numbers::numeric / numbers_validated, 4)     as ported_rate,
    round(roaming_numbers::numeric / numbers_validated, 4)    as roaming_rate,
    round(lookup_errors::numeric / numbers_validated, 4)      as error_rate,
    round(cost_usd / nullif(valid_numbers, 0), 6)             as cost_per_valid_number_usd
from counted
