-- State for rpt_campaign_totals, not a report: one row per account × campaign × phone (recipient
-- or clicker digits; null for clicks without a phone) with the campaign measures of the settled
-- days only, those before settled_before (macro campaign_settle_boundary: the facts re-build
-- their days from their latest − var settle_days, and a click comes at most
-- click_attribution_window_hours after the message it is attributed to). clicked_messages counts
-- the settled days' messages with an attributed click (a message's clicks are all settled when it
-- is). In the marts schema so it is built, audited and published with the reports it feeds
-- (write–audit–publish).
--
-- Incremental (delete+insert by account × campaign): a build folds the days from the boundary
-- the state had (macro settled_before) to the new one into it, reading those days of the facts by
-- their date indexes, and re-writes each touched campaign's rows (its old rows plus the folded
-- days, rolled up by phone): a nightly reads one day of facts and the live campaigns' phones, not
-- their whole lives. The boundary only moves forward; `--full-refresh` folds every settled day.
-- Configured for its folder (dbt_project.yml, marts.campaigns.state). A state built before the
-- callback columns (callbacks; is_converted then counted every campaign a clicker called after) is
-- folded again from every settled day.
{%- set boundary = campaign_settle_boundary() %}
{%- set continues = is_incremental() and state_has_column(this, 'callbacks') %}
{%- set previous = settled_before(this) if continues else "'1970-01-01'::date" %}
with folded as (
    {{ campaign_phone_rows(
        messages_where='submitted_date >= ' ~ previous ~ ' and submitted_date < ' ~ boundary,
        clicks_where='click_date >= ' ~ previous ~ ' and click_date < ' ~ boundary,
        attributed_where='click_date >= ' ~ previous ~ ' and click_date < ' ~ boundary ~ ' + ' ~ (click_attribution_days() + 1)
            ~ " and (attributed_message_at at time zone 'UTC')::date >= " ~ previous
            ~ " and (attributed_message_at at time zone 'UTC')::date < " ~ boundary) | indent(4) }}
),

state_rows as (
    select * from folded
    {%- if continues %}
    union all
    -- The touched campaigns' state so far (their rows are re-written whole).
    select
        account, campaign, phone, first_message_at, last_message_at, messages_sent, messages_delivered,
        segments, cost_usd, is_delivered_recipient, first_click_at, last_click_at, clicks, is_converted,
        clicked_messages, callbacks
    from {{ this }}
    where (account, campaign) in (select account, campaign from folded)
    {%- endif %}
)

select
    rolled.*,
    {{ boundary }} as settled_before
from (
    {{ campaign_phone_rollup('state_rows') | indent(4) }}
) as rolled
