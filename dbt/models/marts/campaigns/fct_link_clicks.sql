-- One row per short-link click. The clicker is identified by the click's `phone` (the recipient of
-- the campaign message whose link was opened). A callback is an answered INBOUND call (fct_calls
-- direction 'received': the clicker called the account) from the clicker's phone starting at or
-- after one of its clicks and less than `click_to_call_window_hours` (dbt var, default 24) after
-- it. Each callback is credited to exactly one click of its phone, of any campaign: the latest
-- before the call (dbt var `callback_attribution`, default last_click) or the earliest within
-- the window (first_click). A click converts when a callback is credited to it; the click holding
-- a clicker's first callback (per account) is where the clicker converted (is_first_conversion:
-- one click per converted clicker, so converted clickers add up over campaigns and days). A click
-- is attributed to the latest message of its campaign sent to the clicker's phone at or before
-- the click and less than `click_attribution_window_hours` (dbt var, default 168 = 7 days) before
-- it; the message's CTR counts the messages with an attributed click.
--
-- Incremental (delete+insert by click_date): a build re-builds the click days from macro
-- settle_window_start (the latest click day built here − var settle_days), the days whose clicks or
-- callbacks can still change; `--full-refresh` rebuilds every day (and applies changed vars to past
-- clicks). Callbacks come from fct_calls, read by its call_date index; a callback of the window can
-- be credited to a click of the window's days before (first_click), read from this table. Every
-- callback credited to a click before the window precedes those credited to the window's clicks,
-- so a clicker converted before the window has a converted click there. Partitioned by month of
-- click_date (macros month_partitions); a click's key holds its day, so it never moves to another
-- month. built_at stamps the rows a build wrote (dbt's run_started_at: every row of the window's
-- days, every row on a `--full-refresh`); the tests read only those (`where: __latest_build__`, by
-- the built_at index), as fct_calls' do: older days were tested by the build that wrote them and
-- have not changed since, and the primary key keeps (account, click_date, click_ordinal) unique
-- across every build.
{%- set window_hours = var('click_to_call_window_hours', 24) %}
{%- set attribution_hours = var('click_attribution_window_hours', 168) %}
{%- set rule = callback_attribution_rule() %}
{{
    config(
        materialized='incremental',
        unique_key='click_date',
        incremental_strategy='month_partitioned_delete_insert',
        partitioned_by_month=('click_date' if var('partition_facts', true) else none),
        on_schema_change='sync_all_columns',
        indexes=[{'columns': ['click_date']}, {'columns': ['clicker_phone']}, {'columns': ['built_at']}],
        post_hook=[
            {'sql': "{{ primary_key(this, ['account', 'click_date', 'click_ordinal']) }}", 'transaction': false},
            {'sql': "{{ name_month_partitions(this) }}", 'transaction': false},
        ],
    )
}}
{%- if is_incremental() %}
{%- set window_start = settle_window_start(this, 'click_date', requires=['is_attributed', 'is_first_conversion']) %}
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

callbacks as materialized (
    -- The callbacks that can be credited to this build's clicks: answered inbound legs from
    -- fct_calls (built first), read by its call_date index from the window's first day.
    select account, {{ phone_digits('from_number') }} as phone, called_at, call_uuid
    from {{ ref('fct_calls') }}
    where direction = 'received'
      and is_answered
      and called_at >= (select min(clicked_at) from clicks)
      {% if is_incremental() %}
      and call_date >= {{ window_start }}
      {% endif %}
),

candidate_clicks as (
    -- The clicks a callback can be credited to: this build's, and (incremental) the built ones of
    -- the callback window's days before them.
    select account, click_date, click_ordinal, clicked_at, clicker_phone from clicks
    {% if is_incremental() %}
    union all
    select account, click_date, click_ordinal, clicked_at, clicker_phone
    from {{ this }}
    where click_date >= {{ window_start }} - {{ callback_window_days() }} and click_date < {{ window_start }}
    {% endif %}
),

credited as (
    -- Each callback credited to exactly one click of its phone within the window before it.
    select distinct on (k.account, k.call_uuid)
        c.account, c.click_date, c.click_ordinal, c.clicker_phone, k.called_at
    from callbacks as k
    join candidate_clicks as c
        on c.account = k.account
       and c.clicker_phone = k.phone
       and k.called_at >= c.clicked_at
       and k.called_at < c.clicked_at + interval '1 hour' * {{ window_hours }}
    order by k.account, k.call_uuid, {{ callback_credit_order('c') }}
),

click_callbacks as (
    select account, click_date, click_ordinal, count(*) as callbacks, min(called_at) as first_callback_at
    from credited
    group by 1, 2, 3
),

first_conversions as (
    -- The click holding each clicker's first callback, unless the clicker converted before this
    -- build's days (incremental: a converted click there).
    select distinct on (r.account, r.clicker_phone) r.account, r.click_date, r.click_ordinal
    from credited as r
    {% if is_incremental() %}
    where not exists (
        select 1 from {{ this }} as t
        where t.account = r.account and t.clicker_phone = r.clicker_phone
          and t.click_date < {{ window_start }} and t.is_converted
    )
    {% endif %}
    order by r.account, r.clicker_phone, r.called_at, r.click_date, r.click_ordinal
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
    k.first_callback_at                                          as converted_call_at,
    k.first_callback_at is not null                              as is_converted,
    round(extract(epoch from k.first_callback_at - c.clicked_at) / 60, 2) as minutes_to_call,
    {{ window_hours }}                                           as conversion_window_hours,
    coalesce(k.callbacks, 0)::integer                            as callbacks,
    f.click_ordinal is not null                                  as is_first_conversion,
    '{{ rule }}'::text                                           as callback_attribution_rule,
    '{{ run_started_at.isoformat() }}'::timestamptz              as built_at
from clicks as c
left join click_callbacks as k using (account, click_date, click_ordinal)
left join first_conversions as f using (account, click_date, click_ordinal)
left join attributions as a using (account, click_date, click_ordinal)
{% if not is_incremental() and not config.get('partitioned_by_month') %}
-- In click_date order (as fct_calls, by call_date): a window of the last days is the table's last
-- pages (partitioned: macro postgres__create_table_as orders them).
order by c.click_date
{% endif %}
