-- One row per platform sub-account (sub_account_id): its record as the latest read of any list
-- showed it (a master's list holds its sub-accounts and a sub-account's list holds itself, so two
-- configured accounts may list the same record). What snapshot snap_sub_accounts versions.
select distinct on (sub_account_id)
    sub_account_id,
    company_name,
    master_organization_id,
    sub_account_status,
    sub_account_created_at,
    extracted_at
from {{ ref('stg_platform__sub_accounts') }}
order by sub_account_id, extracted_at desc, account
