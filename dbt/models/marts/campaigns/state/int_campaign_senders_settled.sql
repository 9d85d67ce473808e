-- State for rpt_campaign_opt_outs, not a report: one row per account × campaign × sender with the
-- campaign messages sent and delivered and the opt-outs attributed (macro campaign_sender_rows) of
-- the settled days only, those before settled_before (macro campaign_settle_boundary, as the other
-- campaign states: an opt-out of those days can only be attributed to a message of those days). In
-- the marts schema so it is built, audited and published with the report it feeds
-- (write–audit–publish).
--
-- Incremental (delete+insert by grain_key): a build adds to the rows it touches the messages and
-- opt-outs of the days from the boundary the state had (macro settled_before) to the new one, read
-- by their date indexes, so a nightly reads those days and not every message ever sent. Counts
-- are sums and the opt-out instants a min and a max: a row so far combined with the newly settled
-- days. The boundary only moves forward; `--full-refresh` folds every settled day.
{{ config(
    unique_key=[grain_key_column()],
    indexes=[{'columns': ['settled_before']}],
    post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}],
) }}
{%- set boundary = campaign_settle_boundary() %}
{%- set previous = settled_before(this) if is_incremental() else "'1970-01-01'::date" %}
with folded as (
    select sums.*, {{ grain_key(['account', 'campaign', 'sender']) }}
    from (
        {{ campaign_sender_sums('(' ~ campaign_sender_rows(previous, boundary) ~ ') as rows') | indent(8) }}
    ) as sums
    where {{ previous }} < {{ boundary }}
),

state_rows as (
    select * from folded
    {%- if is_incremental() %}
    union all
    -- The touched rows so far.
    select
        account, campaign, sender, messages_sent, messages_delivered, opt_outs, all_sender_opt_outs,
        first_opt_out_at, last_opt_out_at, {{ grain_key_column() }}
    from {{ this }}
    where {{ grain_key_column() }} in (select {{ grain_key_column() }} from folded)
    {%- endif %}
)

select
    sums.*,
    {{ boundary }} as settled_before,
    {{ grain_key(['account', 'campaign', 'sender']) }}
from (
    {{ campaign_sender_sums('state_rows') | indent(4) }}
) as sums
