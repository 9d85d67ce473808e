-- One row per 10DLC Brand Identity appeal: renamed and cast (the set is replaced per load, so
-- `appeal_ordinal` is only a position in that load).
select
    _account                                  as account,
    _row_ordinal                              as appeal_ordinal,
    brand_id,
    categories,
    jsonb_array_length(evidence)              as evidence_count,
    explanation,
    status,
    vetting_status,
    outcome -> 'feedback' -> 'category'       as feedback_categories,
    created_at,
    updated_at,
    _extracted_at                             as extracted_at
from {{ source('platform', 'brand_appeals') }}
