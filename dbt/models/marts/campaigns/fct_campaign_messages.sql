-- One row per campaign message: an outbound message with a `tag`, the campaign's name (the same
-- name as the short links' `utm_campaign`). Cost is the charge plus carrier fees, USD.
--
-- Incremental (delete+insert by submitted_date): a build re-builds the days from macro
-- settle_window_start (the latest day built here − var settle_days), the days whose statuses and
-- charges the loader still re-reads (messages settle like CDRs), reading the landing table by its
-- submitted_at index; older days are final. built_at stamps the rows a build wrote: the tests
-- check the latest build's rows. When an account's time zone changed since the last build (macro
-- time_zones_changed_since), every day is re-built (delete+insert replaces whole days, so one
-- account's rows cannot be re-built alone; zones change rarely). `--full-refresh` rebuilds every day.
-- Partitioned by month of submitted_date (macros month_partitions); a message the platform moved
-- to another day is deleted from its old one (row_key; the moves the loader logged, landing_moves).
{{
    config(
        materialized='incremental',
        unique_key='submitted_date',
        incremental_strategy='month_partitioned_delete_insert',
        partitioned_by_month=('submitted_date' if var('partition_facts', true) else none),
        row_key=['account', 'message_id'],
        landing_moves={'table': 'platform.messages', 'key': ['message_id']},
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['submitted_date']}, {'columns': ['built_at']}],
        post_hook=[
            {'sql': "{{ primary_key(this, ['account', 'message_id']) }}", 'transaction': false},
            {'sql': "{{ name_month_partitions(this) }}", 'transaction': false},
        ],
    )
}}
{%- set built_columns = adapter.get_columns_in_relation(this) | map(attribute='name') | list if is_incremental() else [] -%}
{%- set rebuild_all = is_incremental() and ('submitted_local_date' not in built_columns or time_zones_changed_since(this)) %}
select
    m.account,
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
    coalesce(tz.time_zone, 'UTC')                                         as time_zone,
    {{ local_date('submitted_at', 'tz.time_zone') }}       as submitted_local_date,
    extract(hour from submitted_at at time zone coalesce(tz.time_zone, 'UTC'))::integer
                                                                          as submitted_local_hour,
    sent_at,
    delivered_at,
    error_message,
    '{{ run_started_at.isoformat() }}'::timestamptz   as built_at
from {{ ref('stg_platform__messages') }} as m
left join {{ ref('stg_etl__account_time_zones') }} as tz
    on tz.account = m.account
where direction = 'outbound'
  and tag is not null
  {% if is_incremental() and not rebuild_all %}
  and submitted_at >= ({{ settle_window_start(this, 'submitted_date') }})::timestamp at time zone 'UTC'
  {% endif %}
