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
        post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
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
    {{ message_measures() | indent(4) | trim }},
    {{ grain_key(['submitted_date', 'account', 'country_iso2', 'carrier', 'status', 'direction', 'kind', 'channel']) }}
from {{ ref('fct_messages') }}
{% if is_incremental() %}
where submitted_date >= {{ settle_window_start(this, 'submitted_date', requires=['all_messages_delivery_rate', grain_key_column()]) }}
{% endif %}
group by 1, 2, 3, 4, 5, 6, 7, 8
