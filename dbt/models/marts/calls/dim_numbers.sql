-- One row per phone number an account owns (as last listed): where it is, what it costs, and its
-- recording, transcription and forwarding settings. fct_calls.account_number joins here.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'phone_number']) }}", 'transaction': false}]) }}
select
    account || '/' || phone_number                          as number_key,
    account,
    number_id,
    phone_number,
    number_label,
    city,
    state,
    country,
    country_code,
    number_status,
    monthly_fee_usd,
    activation_fee_usd,
    per_minute_usd,
    channels,
    is_sms_enabled,
    is_recording_enabled,
    is_transcription_enabled,
    transcription_threshold_seconds,
    jsonb_array_length(destinations_json)                   as forward_destinations,
    destinations_json -> 0 ->> 'destination'                as primary_destination,
    added_at,
    paid_until_date,
    extracted_at
from {{ ref('stg_platform__numbers') }}
