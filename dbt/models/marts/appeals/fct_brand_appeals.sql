-- One row per 10DLC Brand Identity appeal: its status, outcome (the vetting status) and, once
-- resolved (status COMPLETE or COMPLETED, both spellings occur), days from filing to resolution.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account', 'appeal_ordinal']) }}", 'transaction': false}]) }}
select
    account,
    brand_id,
    appeal_ordinal,
    created_at,
    updated_at,
    status,
    status in ('COMPLETE', 'COMPLETED')                                 as is_resolved,
    vetting_status                                                      as outcome,
    vetting_status = 'VERIFIED'                                         as is_verified,
    categories,
    feedback_categories,
    coalesce(jsonb_array_length(feedback_categories), 0)                as feedback_category_count,
    evidence_count,
    case
        when status in ('COMPLETE', 'COMPLETED')
            then round(extract(epoch from updated_at - created_at) / 86400, 2)
    end                                                                 as days_to_resolution
from {{ ref('stg_platform__brand_appeals') }}
