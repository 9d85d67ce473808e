-- One row per transcription (account × request_id) with its call's attributes, score and the
-- figures computed from its turns:
--   is_negative: score <= 3.0 (the platform: 1.0–3.0 negative, 4.0–5.0 positive).
--   sentiment_trajectory = mean turn_score of the last third of the call − that of the first third
--     (by turn start time; positive = the call ended better than it started).
--   talk ratio per side = talk_ms of that side / total talk_ms; silence_ratio = 1 − talk_ms / call_ms
--     (floored at 0 when turns overlap).
--   transcription_billed_minutes = ceil(duration_seconds / 60); transcription_cost_per_minute_usd =
--   charge_usd / transcription_billed_minutes (billed_minutes and cost_per_minute_usd are a call's).
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'request_id']) }}", 'transaction': false}]) }}
with turn_figures as (
    select
        account,
        request_id,
        count(*)                                                        as turns,
        sum(talk_ms)                                                    as talk_ms,
        coalesce(sum(talk_ms) filter (where speaker_side = 'agent'), 0)    as agent_talk_ms,
        coalesce(sum(talk_ms) filter (where speaker_side = 'customer'), 0) as customer_talk_ms,
        count(turn_score) filter (where speaker_side = 'agent')         as agent_scored_turns,
        sum(turn_score) filter (where speaker_side = 'agent')           as agent_turn_score_sum,
        count(turn_score) filter (where speaker_side = 'customer')      as customer_scored_turns,
        sum(turn_score) filter (where speaker_side = 'customer')        as customer_turn_score_sum,
        avg(turn_score) filter (where call_third = 1)                   as first_third_score,
        avg(turn_score) filter (where call_third = 3)                   as last_third_score,
        max(end_ms)                                                     as last_turn_end_ms
    from {{ ref('fct_transcript_turns') }}
    group by 1, 2
)
select
    t.account,
    t.request_id,
    t.call_uuid,
    t.transcription_id,
    c.direction,
    c.called_at,
    coalesce(c.call_date, (t.transcribed_at at time zone 'UTC')::date)  as call_date,
    c.trunk_name,
    c.account_number,
    t.transcription_status,
    t.transcription_status = 'completed'                                as is_completed,
    t.language,
    t.transcribed_at,
    t.duration_seconds,
    ceil(t.duration_seconds / 60.0)::integer                            as transcription_billed_minutes,
    t.charge_usd,
    t.charge_usd / nullif(ceil(t.duration_seconds / 60.0), 0)           as transcription_cost_per_minute_usd,
    t.score,
    t.score <= 3.0                                                      as is_negative,
    t.score >= 4.0                                                      as is_positive,
    coalesce(f.turns, 0)                                                as turns,
    coalesce(t.duration_seconds * 1000, f.last_turn_end_ms)             as call_ms,
    coalesce(f.talk_ms, 0)                                              as talk_ms,
    coalesce(f.agent_talk_ms, 0)                                        as agent_talk_ms,
    coalesce(f.customer_talk_ms, 0)                                     as customer_talk_ms,
    f.agent_talk_ms::numeric / nullif(f.talk_ms, 0)                     as agent_talk_ratio,
    f.customer_talk_ms::numeric / nullif(f.talk_ms, 0)                  as customer_talk_ratio,
    greatest(0, 1 - f.talk_ms::numeric / nullif(coalesce(t.duration_seconds * 1000, f.last_turn_end_ms), 0))
                                                                        as silence_ratio,
    coalesce(f.agent_scored_turns, 0)                                   as agent_scored_turns,
    f.agent_turn_score_sum,
    coalesce(f.customer_scored_turns, 0)                                as customer_scored_turns,
    f.customer_turn_score_sum,
    f.first_third_score,
    f.last_third_score,
    f.last_third_score - f.first_third_score                            as sentiment_trajectory,
    t.summary
from {{ ref('stg_platform__transcriptions') }} as t
left join {{ ref('fct_calls') }} as c
    on c.account = t.account and c.call_uuid = t.call_uuid
left join turn_figures as f
    on f.account = t.account and f.request_id = t.request_id
