-- One row per campaign message: an outbound message with a `tag`, the campaign's name (the same
-- name as the short links' `utm_campaign`). Cost is the charge plus carrier fees, USD.
select
    account,
    message_id,
    tag                                           as campaign,
    message_type,
    from_number                                   as sender,
    to_number,
    {{ phone_digits('to_number') }}               as recipient_phone,
    status,
    is_delivered,
    segments,
    charge_usd,
    carrier_fees_usd,
    charge_usd + coalesce(carrier_fees_usd, 0)    as cost_usd,
    submitted_at,
    submitted_date,
    sent_at,
    delivered_at,
    error_message
from {{ ref('stg_platform__messages') }}
where direction = 'outbound'
  and tag is not null
