-- One row per account the warehouse holds data of (the names of the loader's config): how many
-- trunks and numbers it has, the span of its calls (from rpt_call_kpis_daily: the legs of
-- fct_calls summed per day, far fewer rows to read), the time zone its local dates are in, and
-- its place in the platform's account
-- hierarchy (a master and its sub-accounts, two levels), from the sub-organizations lists
-- (stg_platform__sub_accounts): a master's list holds its sub-accounts, a sub-account's list
-- holds itself. A configured account is the sub-account X when
--   1. it is named `<parent>-sub-<X>` (the loader's name for a sub-account its master's config
--      lists, docs/reference/warehouse-tables.md, "Sub-accounts"), or
--   2. dbt var `sub_account_ids` maps its name to X (`{"acme-client": 42}`), or
--   3. its list is exactly X and another configured account lists X among several sub-accounts;
-- every other account is a master. A master with a single sub-account, both configured on their
-- own, list the same one record and cannot be told apart from the data: both get is_master,
-- platform_account_id and sub_accounts null (unknown, not a guess) until var sub_account_ids says
-- which is the sub-account.
{{ config(post_hook=[{'sql': "{{ primary_key(this, ['account']) }}", 'transaction': false}]) }}
{%- set declared = var('sub_account_ids', {}) %}
with calls as (
    select
        account,
        min(call_date)      as first_call_date,
        max(call_date)      as last_call_date,
        sum(leg_attempts)   as call_legs
    from {{ ref('rpt_call_kpis_daily') }}
    group by 1
),
trunks as (
    select account, count(*) as trunks from {{ ref('stg_platform__sip_trunks') }} group by 1
),
numbers as (
    select account, count(*) as numbers from {{ ref('stg_platform__numbers') }} group by 1
),
listed as (
    select * from {{ ref('stg_platform__sub_accounts') }}
),
lists as (
    select
        account,
        count(*)                                                as listed_sub_accounts,
        count(*) filter (where sub_account_status = 'enabled')  as listed_enabled_sub_accounts,
        min(sub_account_id)                                     as first_listed_id,
        min(master_organization_id)                             as master_organization_id
    from listed
    group by 1
),
accounts as (
    select account from calls
    union
    select account from trunks
    union
    select account from numbers
    union
    select account from lists
),
declared_subs as (
    select null::text as account, null::bigint as sub_account_id where false
    {%- for name, id in declared.items() %}
    union all select '{{ name }}', {{ id | int }}
    {%- endfor %}
),
named_records as (
    -- Rules 1 and 2: the sub-account an account is by its name or by var sub_account_ids.
    select
        a.account,
        coalesce(substring(a.account from '-sub-([0-9]+)$')::bigint, d.sub_account_id) as sub_account_id
    from accounts as a
    left join declared_subs as d using (account)
),
own_records as (
    -- The sub-account each configured sub-account is (rule 3 after rules 1 and 2). is_ambiguous: a
    -- list of exactly one record that another account, not known to be a sub-account, lists alone
    -- too (a master with one sub-account, both configured): which one is the master is unknown.
    select
        a.account,
        coalesce(
            a.sub_account_id,
            case when l.listed_sub_accounts = 1 and exists (
                select 1
                from listed as o
                join lists as ol on ol.account = o.account
                where o.account <> a.account
                  and o.sub_account_id = l.first_listed_id
                  and ol.listed_sub_accounts > 1
            ) then l.first_listed_id end
        ) as sub_account_id,
        a.sub_account_id is null and l.listed_sub_accounts = 1 and exists (
            select 1
            from listed as o
            join lists as ol on ol.account = o.account
            join named_records as n on n.account = o.account
            where o.account <> a.account
              and o.sub_account_id = l.first_listed_id
              and ol.listed_sub_accounts = 1
              and n.sub_account_id is null
        ) as is_ambiguous
    from named_records as a
    left join lists as l using (account)
),
hierarchy as (
    select
        r.account,
        case when not r.is_ambiguous then r.sub_account_id is null end  as is_master,
        r.sub_account_id,
        -- The sub-account's record as any list holds it (its own, its master's): the same record.
        (select s.company_name from listed as s
          where s.sub_account_id = r.sub_account_id order by s.extracted_at desc limit 1) as company_name,
        (select s.sub_account_status from listed as s
          where s.sub_account_id = r.sub_account_id order by s.extracted_at desc limit 1) as sub_account_status,
        (select s.master_organization_id from listed as s
          where s.sub_account_id = r.sub_account_id order by s.extracted_at desc limit 1) as master_organization_id
    from own_records as r
),
built as (
select
    a.account,
    coalesce(z.time_zone, 'UTC') as time_zone,
    coalesce(t.trunks, 0)       as trunks,
    coalesce(n.numbers, 0)      as numbers,
    coalesce(c.call_legs, 0)    as call_legs,
    c.first_call_date,
    c.last_call_date,
    h.is_master,
    case when h.is_master then l.master_organization_id when not h.is_master then h.sub_account_id end
                                                                                     as platform_account_id,
    -- The configured master whose list holds the sub-account: by the fan-out name, else the
    -- master (not itself a sub-account) listing it with the most sub-accounts.
    case when not h.is_master then coalesce(
        (select p.account from accounts as p
          where a.account = p.account || '-sub-' || h.sub_account_id::text),
        (select o.account
         from listed as o
         join lists as ol on ol.account = o.account
         join own_records as orr on orr.account = o.account
         where o.sub_account_id = h.sub_account_id
           and o.account <> a.account
           and orr.sub_account_id is null
           and not orr.is_ambiguous
         order by ol.listed_sub_accounts desc, o.account
         limit 1)
    ) end                                                                            as parent_account,
    h.company_name,
    h.sub_account_status,
    case when h.is_master then coalesce(l.listed_sub_accounts, 0) when not h.is_master then 0 end
                                                                                     as sub_accounts,
    case when h.is_master then coalesce(l.listed_enabled_sub_accounts, 0) when not h.is_master then 0 end
                                                                                     as enabled_sub_accounts
from accounts as a
join hierarchy as h using (account)
left join calls as c using (account)
left join trunks as t using (account)
left join numbers as n using (account)
left join lists as l using (account)
left join {{ ref('stg_etl__account_time_zones') }} as z using (account)
)
select
    *,
    -- Two levels: a master is its own master account.
    case when is_master then account else parent_account end   as master_account
from built
