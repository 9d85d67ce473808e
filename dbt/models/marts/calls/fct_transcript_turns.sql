-- One row per speaker turn of a call transcription (account × request_id × turn_index), with the
-- side that spoke and the turn's sentiment as a 1–5 score:
--   positive → 5, neutral → 3, mixed → 3, negative → 1; any other label → null (kept, unscored).
-- speaker_side: `agent` is the account's side (a call's turns, both revisions: the account's own
-- number on the call; an uploaded file's: `channel_1`), `customer` the other party (the other
-- number, or `channel_2`).
-- call_third: 1, 2 or 3 by the turn's start time within the call (duration from the transcription,
-- else the last turn's end).
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'request_id', 'turn_index']) }}", 'transaction': false}]) }}
with turns as (
    select * from {{ ref('stg_platform__transcription_turns') }}
),
transcriptions as (
    select
        t.account,
        t.request_id,
        c.account_number,
        c.other_party_number,
        coalesce(t.duration_seconds * 1000, max(tt.end_ms)) as call_ms
    from {{ ref('stg_platform__transcriptions') }} as t
    left join {{ ref('fct_calls') }} as c
        on c.account = t.account and c.call_uuid = t.call_uuid
    left join turns as tt
        on tt.account = t.account and tt.request_id = t.request_id
    group by 1, 2, 3, 4, t.duration_seconds
)
select
    t.account,
    t.request_id,
    t.turn_index,
    t.speaker,
    case
        when t.speaker = 'channel_1' or t.speaker = tr.account_number then 'agent'
        when t.speaker = 'channel_2' or t.speaker = tr.other_party_number then 'customer'
        else null
    end                                                             as speaker_side,
    t.start_ms,
    t.end_ms,
    greatest(t.end_ms - t.start_ms, 0)                              as talk_ms,
    case
        when tr.call_ms is null or tr.call_ms <= 0 then null
        else least(3, 1 + floor(3.0 * t.start_ms / tr.call_ms))::integer
    end                                                             as call_third,
    t.sentiment,
    case t.sentiment
        when 'positive' then 5
        when 'neutral' then 3
        when 'mixed' then 3
        when 'negative' then 1
    end                                                             as turn_score,
    t.turn_text
from turns as t
left join transcriptions as tr
    on tr.account = t.account and tr.request_id = t.request_id
