-- One row per version of a platform sub-account's record (dbt snapshot snap_sub_accounts): its
-- company name, status and master, valid from valid_from until valid_to (UTC, timestamptz; null
-- while current). A rename is a new version; dim_accounts holds only the latest.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['sub_account_id', 'valid_from']) }}", 'transaction': false}]) }}
select
    sub_account_id,
    company_name,
    master_organization_id,
    sub_account_status,
    sub_account_created_at,
    {{ snapshot_validity() }}
from {{ ref('snap_sub_accounts') }}
