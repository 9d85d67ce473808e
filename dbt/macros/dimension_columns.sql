{#- The columns of dim_numbers and dim_trunks, written once for the current dimension and for its
    history mart (dim_numbers_history, dim_trunks_history), both selecting from staging names
    (macros numbers_staged_columns, trunks_staged_columns). -#}
{% macro dim_numbers_columns() -%}
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
    paid_until_date
{%- endmacro %}

{#- A trunk's identity and settings: every column of dim_trunks but its month-to-date totals. -#}
{% macro dim_trunks_settings_columns() -%}
    account || '/' || trunk_name        as trunk_key,
    account,
    trunk_id,
    trunk_name,
    trunk_label,
    caller_id,
    auth_method,
    ip_auth_host,
    ip_auth_request_status,
    trunk_status,
    is_caller_id_passthrough,
    allows_multiple_caller_ids,
    is_recording_enabled,
    is_machine_detection_enabled,
    is_transcription_enabled,
    transcription_threshold_seconds,
    is_media_encrypted
{%- endmacro %}
