-- Message opt-outs in the campaign funnel: one row per account × campaign × sender, the numbers
-- that asked for no more messages beside the messages the campaign sent from that sender. Opt-outs
-- per campaign are the sum over its senders, per sender the sum over campaigns; the opt-out rate
-- is sum(opt_outs) / sum(messages_delivered) at any grain (both stored, no ratio to average).
-- How an opt-out is attributed to a campaign and sender: macro campaign_sender_rows. A campaign
-- without opt-outs has its row with 0.
--
-- A table rebuilt whole each build from the settled state (int_campaign_senders_settled: the days
-- before its boundary) plus the messages and opt-outs from that boundary on, read by their date
-- indexes: a nightly does not count every message ever sent, nor attribute every opt-out, again.
{{ config(post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}]) }}
{%- set settled = ref('int_campaign_senders_settled') %}
with both_sides as (
    -- The settled days...
    select
        account, campaign, sender, messages_sent, messages_delivered, opt_outs, all_sender_opt_outs,
        first_opt_out_at, last_opt_out_at
    from {{ settled }}
    union all
    -- ...and the days not settled yet.
    select * from (
        {{ campaign_sender_rows(settled_before(settled)) | indent(8) }}
    ) as recent
)

select
    sums.*,
    {{ grain_key(['account', 'campaign', 'sender']) }}
from (
    {{ campaign_sender_sums('both_sides') | indent(4) }}
) as sums
