-- Sentiment per UTC call day × account × direction × trunk × account number (the account's own
-- number on the call), numerators and denominators side by side so BI can roll up by trunk, by
-- number or by day. Agent-side and customer-side turn scores are separate columns (sentiment by
-- speaker side). avg_score = score_sum / scored_calls; negative_call_rate = negative_calls /
-- scored_calls; mean trajectory = trajectory_sum / trajectory_calls; silence_ratio = 1 −
-- talk_ms / call_ms; transcription cost per minute = transcription_charge_usd /
-- transcription_billed_minutes.
select
    call_date,
    account,
    direction,
    trunk_name,
    account_number,
    count(*)                                                        as transcriptions,
    count(*) filter (where is_completed)                            as completed_transcriptions,
    count(score)                                                    as scored_calls,
    sum(score)                                                      as score_sum,
    avg(score)                                                      as avg_score,
    count(*) filter (where is_negative)                             as negative_calls,
    {{ ratio('count(*) filter (where is_negative)', 'count(score)') }} as negative_call_rate,
    count(sentiment_trajectory)                                     as trajectory_calls,
    sum(sentiment_trajectory)                                       as trajectory_sum,
    avg(sentiment_trajectory)                                       as avg_sentiment_trajectory,
    sum(agent_scored_turns)                                         as agent_scored_turns,
    sum(agent_turn_score_sum)                                       as agent_turn_score_sum,
    sum(agent_turn_score_sum)::numeric / nullif(sum(agent_scored_turns), 0) as agent_avg_turn_score,
    sum(customer_scored_turns)                                      as customer_scored_turns,
    sum(customer_turn_score_sum)                                    as customer_turn_score_sum,
    sum(customer_turn_score_sum)::numeric / nullif(sum(customer_scored_turns), 0) as customer_avg_turn_score,
    sum(talk_ms)                                                    as talk_ms,
    sum(agent_talk_ms)                                              as agent_talk_ms,
    sum(customer_talk_ms)                                           as customer_talk_ms,
    sum(call_ms) filter (where turns > 0)                           as call_ms,
    sum(agent_talk_ms)::numeric / nullif(sum(talk_ms), 0)           as agent_talk_ratio,
    greatest(0, 1 - sum(talk_ms)::numeric / nullif(sum(call_ms) filter (where turns > 0), 0)) as silence_ratio,
    sum(transcription_billed_minutes)                               as transcription_billed_minutes,
    sum(charge_usd)                                                 as transcription_charge_usd,
    sum(charge_usd) / nullif(sum(transcription_billed_minutes), 0)  as transcription_cost_per_minute_usd
from {{ ref('fct_call_transcriptions') }}
group by 1, 2, 3, 4, 5
