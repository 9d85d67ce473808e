-- One row per short-link click. The clicker is identified by the click's `phone` (the recipient of
-- the campaign message whose link was opened). A click converts when that phone has an answered
-- call (from or to it) starting within `click_to_call_window_hours` (dbt var, default 24) after the
-- click. A click is attributed to the latest message of its campaign sent to the clicker's phone
-- at or before the click and less than `click_attribution_window_hours` (dbt var, default 168 = 7
-- days) before it; the message's CTR counts the messages with an attributed click.
--
-- Incremental (delete+insert by click_date): a build re-builds the click days from macro
-- settle_window_start (the latest click day built here − var settle_days), the days whose clicks or
-- answered calls can still change; `--full-refresh` rebuilds every day. Answered calls come from
-- fct_calls, read by its call_date index. Partitioned by month of click_date (macros
-- month_partitions); a click's key holds its day, so it never moves to another month.
{%- set window_hours = var('click_to_call_window_hours', 24) %}
{%- set attribution_hours = var('click_attribution_window_hours', 168) %}
{{
    config(
        materialized='incremental',
        unique_key='click_date',
        incremental_strategy='month_partitioned_delete_insert',
        partitioned_by_month=('click_date' if var('partition_facts', true) else none),
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['click_date']}],
        post_hook=[
            {'sql': "{{ primary_key(this, ['account', 'click_date', 'click_ordinal']) }}", 'transaction': false},
            {'sql': "{{ name_month_partitions(this) }}", 'transaction': false},
        ],
    )
}}
{%- if is_incremental() %}
{%- set window_start = settle_window_start(this, 'click_date', requires=['is_attributed']) %}
{%- endif %}
with clicks as (
    select
        account,
        click_date,
        click_ordinal,
        clicked_at,
        utm_campaign                      as campaign,
        link_hash,
        phone,
        {{ phone_digits('phone') }}       as clicker_phone,
        operating_system,
        browser,
        language,
        latitude,
        longitude
    from {{ ref('stg_platform__short_link_metrics') }}
    {% if is_incremental() %}
    where click_date >= {{ window_start }}
    {% endif %}
),

answered_calls as materialized (
    -- The answered legs that can convert this build's clicks: from fct_calls (built first), read by
    -- its call_date index from the window's first day, none before the first click.
    select account, from_number, to_number, called_at, call_uuid
    from {{ ref('fct_calls') }}
    where is_answered
      and called_at >= (select min(clicked_at) from clicks)
      {% if is_incremental() %}
      and call_date >= {{ window_start }}
      {% endif %}
),

answered_calls_by_phone as (
    select account, {{ phone_digits('from_number') }} as phone, called_at, call_uuid
    from answered_calls
    union all
    select account, {{ phone_digits('to_number') }}, called_at, call_uuid
    from answered_calls
),

first_calls as (
    select
        c.account,
        c.click_date,
        c.click_ordinal,
        min(k.called_at) as first_call_at
    from clicks as c
    join answered_calls_by_phone as k
        on k.account = c.account
       and k.phone = c.clicker_phone
       and k.called_at >= c.clicked_at
       and k.called_at < c.clicked_at + interval '1 hour' * {{ window_hours }}
    group by 1, 2, 3
),

campaign_messages as materialized (
    -- The messages this build's clicks can be attributed to, read by fct_campaign_messages' day index.
    select account, campaign, recipient_phone, message_id, submitted_at
    from {{ ref('fct_campaign_messages') }}
    where submitted_date >= ((select min(clicked_at) from clicks)
                             - interval '1 hour' * {{ attribution_hours }})::date
),

attributions as (
    select distinct on (c.account, c.click_date, c.click_ordinal)
        c.account,
        c.click_date,
        c.click_ordinal,
        m.message_id,
        m.submitted_at
    from clicks as c
    join campaign_messages as m
        on m.account = c.account
       and m.campaign = c.campaign
       and m.recipient_phone = c.clicker_phone
       and m.submitted_at <= c.clicked_at
       and m.submitted_at > c.clicked_at - interval '1 hour' * {{ attribution_hours }}
    order by c.account, c.click_date, c.click_ordinal, m.submitted_at desc, m.message_id desc
)

select
    c.*,
    a.message_id                                                 as attributed_message_id,
    a.submitted_at                                               as attributed_message_at,
    a.message_id is not null                                     as is_attributed,
    {{ attribution_hours }}                                      as attribution_window_hours,
    f.first_call_at                                              as converted_call_at,
    f.first_call_at is not null                                  as is_converted,
    round(extract(epoch from f.first_call_at - c.clicked_at) / 60, 2) as minutes_to_call,
    {{ window_hours }}                                           as conversion_window_hours
from clicks as c
left join first_calls as f using (account, click_date, click_ordinal)
left join attributions as a using (account, click_date, click_ordinal)
{% if not is_incremental() and not config.get('partitioned_by_month') %}
-- In click_date order (as fct_calls, by call_date): a window of the last days is the table's last
-- pages (partitioned: macro postgres__create_table_as orders them).
order by c.click_date
{% endif %}
