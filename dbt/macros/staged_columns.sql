{#- The staging names of a landing table's columns, written once for the staging model that reads the
    landing table and for the history mart that reads its dbt snapshot (which holds the same
    columns, one row per version): `select {{ numbers_staged_columns() }} from <relation>`. -#}
{% macro numbers_staged_columns() -%}
    _account                    as account,
    id                          as number_id,
    number                      as phone_number,
    label                       as number_label,
    city,
    state,
    country,
    country_short_name          as country_code,
    status                      as number_status,
    activation_fee              as activation_fee_usd,
    monthly_fee                 as monthly_fee_usd,
    per_min                     as per_minute_usd,
    channels,
    sms_enabled                 as is_sms_enabled,
    call_recording_enabled      as is_recording_enabled,
    transcription_enabled       as is_transcription_enabled,
    transcription_threshold     as transcription_threshold_seconds,
    destinations                as destinations_json,
    added                       as added_at,
    paid_until                  as paid_until_date,
    _extracted_at               as extracted_at
{%- endmacro %}

{#- The staging names of platform.sip_trunks' columns (see numbers_staged_columns). `talk_time` and
    `charge` are the trunk's outbound totals for the current month so far as of the read. -#}
{% macro trunks_staged_columns() -%}
    _account                                            as account,
    id                                                  as trunk_id,
    name                                                as trunk_name,
    label                                               as trunk_label,
    callerid                                            as caller_id,
    auth_method,
    host_request ->> 'host'                             as ip_auth_host,
    host_request ->> 'status'                           as ip_auth_request_status,
    status                                              as trunk_status,
    passthrough                                         as is_caller_id_passthrough,
    multiple_numbers                                    as allows_multiple_caller_ids,
    call_recording_enabled                              as is_recording_enabled,
    machine_detection_enabled                           as is_machine_detection_enabled,
    transcription_enabled                               as is_transcription_enabled,
    transcription_threshold                             as transcription_threshold_seconds,
    encrypted_media                                     as is_media_encrypted,
    talk_time                                           as month_to_date_talk_time_seconds,
    charge                                              as month_to_date_charge_usd,
    date_trunc('month', _extracted_at at time zone 'UTC')::date as month_to_date_start_date,
    _extracted_at                                       as extracted_at
{%- endmacro %}

{#- Validity of a snapshot version as timestamptz (dbt stores the transform's clock without a zone:
    UTC, the warehouse's zone): valid_from, valid_to (null while current) and is_current. -#}
{% macro snapshot_validity() -%}
    dbt_valid_from at time zone 'UTC'                   as valid_from,
    dbt_valid_to at time zone 'UTC'                     as valid_to,
    dbt_valid_to is null                                as is_current
{%- endmacro %}
