-- One row per SMS/MMS message as the platform reports it: renamed and cast, nulls kept as nulls.
select
    _account                            as account,
    message_id,
    direction,
    message_type,
    from_number,
    to_number,
    mcc,
    mnc,
    body_text,
    media                               as media_urls,
    tag,
    status,
    status = 'delivered'                as is_delivered,
    segments,
    charge::numeric                     as charge_usd,
    carrier_fees::numeric               as carrier_fees_usd,
    -- Only a delivered message carries carrier fees (platform-facts): an undelivered one is not missing them.
    carrier_fees is null and status = 'delivered' as is_carrier_fees_missing,
    submitted_at,
    (submitted_at at time zone 'UTC')::date as submitted_date,
    sent_at,
    delivered_at,
    nullif(error_message, '')           as error_message,
    _extracted_at                       as extracted_at
from {{ source('platform', 'messages') }}
