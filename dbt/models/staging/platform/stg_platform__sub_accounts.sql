-- One row per sub-account record an account's sub-organizations list holds (GET
-- /v1/sub-organizations): renamed and cast. A master's list holds its sub-accounts; a sub-account's
-- list holds itself (platform-facts.md "Sub-accounts"). The record's `name` is the sub-account's
-- company name. API keys are never stored.
select
    _account                as account,
    id                      as sub_account_id,
    name                    as company_name,
    master_organization     as master_organization_id,
    status                  as sub_account_status,
    created_at              as sub_account_created_at,
    _extracted_at           as extracted_at
from {{ source('platform', 'sub_accounts') }}
