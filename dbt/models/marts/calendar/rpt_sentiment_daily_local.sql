-- Sentiment per account-local call day × account × direction × trunk × account number:
-- rpt_sentiment_daily with the day taken in the account's time zone (config `timezone`): the local
-- date of the transcribed call's start (fct_call_transcriptions.called_at; transcribed_at when the
-- call is not loaded), the same measures (macro sentiment_measures). is_partial_local_day: the
-- local day is only partly inside the UTC range the cdrs stream was read for (the calls the
-- transcriptions belong to; macro is_partial_local_day). A table, as rpt_sentiment_daily.
{{ config(post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}]) }}
with transcriptions as (
    select
        t.*,
        coalesce(z.time_zone, 'UTC')                                        as time_zone,
        {{ local_date('coalesce(t.called_at, t.transcribed_at)', 'z.time_zone') }} as call_local_date
    from {{ ref('fct_call_transcriptions') }} as t
    left join {{ ref('stg_etl__account_time_zones') }} as z using (account)
),
days as (
    select
        call_local_date,
        account,
        time_zone,
        direction,
        trunk_name,
        account_number,
        {{ sentiment_measures() | indent(8) | trim }}
    from transcriptions
    group by 1, 2, 3, 4, 5, 6
)
select
    d.*,
    {{ is_partial_local_day('d.call_local_date', 'd.time_zone') }} as is_partial_local_day,
    {{ grain_key(['d.call_local_date', 'd.account', 'd.direction', 'd.trunk_name', 'd.account_number']) }}
from days as d
left join ({{ loaded_ranges_of(['cdrs']) }}) as loaded using (account)
