-- One row per number of a validation request (token): the lookup's verdict and its charge, dated
-- by int_validations_dated (the first load of the request's results, UTC).
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'validation_token', 'phone_number']) }}", 'transaction': false}]) }}
select
    r.account,
    r.validation_token,
    r.phone_number,
    {{ phone_digits('r.phone_number') }}                  as phone,
    v.validated_at,
    v.validated_date,
    r.is_valid,
    r.is_reachable,
    r.is_ported,
    r.is_roaming,
    r.is_risky_destination,
    r.is_unallocated_range,
    r.error_code,
    r.error_code is not null and r.error_code <> '000'    as is_lookup_error,
    r.is_valid is false or r.is_reachable is false        as is_invalid_or_unreachable,
    r.number_type,
    r.carrier_name,
    r.country_code,
    r.e164_format,
    r.mcc,
    r.mnc,
    r.utc_offset,
    r.charge_usd
from {{ ref('stg_platform__validation_results') }} as r
join {{ ref('int_validations_dated') }} as v using (account, validation_token)
