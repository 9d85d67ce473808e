-- SMS/MMS per UTC day × account × country × carrier × status × direction × kind × channel: message
-- counts, delivered, segments and cost including carrier fees, from fct_messages. all_messages_delivery_rate is
-- a ratio of this row (Non-additive): re-aggregate delivered_messages / messages instead.
--
-- Incremental (delete+insert by submitted_date): a build re-builds the days fct_messages
-- re-processes (from the latest day here − var settle_days), read by fct_messages' date index.
{{
    config(
        materialized='incremental',
        unique_key='submitted_date',
        incremental_strategy='delete+insert',
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['submitted_date']}],
        post_hook=[{'sql': "{{ primary_key(this, ['submitted_date', 'account', 'country_iso2', 'carrier', 'status', 'direction', 'kind', 'channel']) }}", 'transaction': false}],
    )
}}
select
    submitted_date,
    account,
    country_iso2,
    carrier,
    status,
    direction,
    kind,
    channel,
    count(*)::integer                                              as messages,
    count(*) filter (where is_delivered)::integer                  as delivered_messages,
    {{ ratio('count(*) filter (where is_delivered)', 'count(*)', 4) }} as all_messages_delivery_rate,
    sum(segments)::integer                                         as segments,
    sum(charge_usd)                                                as charge_usd,
    sum(coalesce(carrier_fees_usd, 0))                             as carrier_fees_usd,
    sum(cost_usd)                                                  as cost_usd,
    count(*) filter (where is_carrier_fees_missing)::integer       as carrier_fees_missing_messages
from {{ ref('fct_messages') }}
{% if is_incremental() %}
where submitted_date >= {{ settle_window_start(this, 'submitted_date', requires=['all_messages_delivery_rate']) }}
{% endif %}
group by 1, 2, 3, 4, 5, 6, 7, 8
