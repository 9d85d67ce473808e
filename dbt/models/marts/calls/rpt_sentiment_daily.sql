-- Sentiment per UTC call day × account × direction × trunk × account number (the account's own
-- number on the call), numerators and denominators side by side so BI can roll up by trunk, by
-- number or by day. Agent-side and customer-side turn scores are separate columns (sentiment by
-- speaker side). avg_score = score_sum / scored_calls; negative_call_rate = negative_calls /
-- scored_calls; mean trajectory = trajectory_sum / trajectory_calls; silence_ratio = 1 −
-- talk_ms / call_ms; transcription cost per minute = transcription_charge_usd /
-- transcription_billed_minutes.
{{ config(post_hook=[{'sql': "{{ primary_key(this, [grain_key_column()]) }}", 'transaction': false}]) }}
select
    call_date,
    account,
    direction,
    trunk_name,
    account_number,
    {{ sentiment_measures() | indent(4) | trim }},
    {{ grain_key(['call_date', 'account', 'direction', 'trunk_name', 'account_number']) }}
from {{ ref('fct_call_transcriptions') }}
group by 1, 2, 3, 4, 5
