-- Rejected rows stored before the loader masked credentials by name in any spelling (issue 18,
-- item 12) may hold a key or token in clear under a renamed field (`apiKey`, `accessToken`): mask
-- every top-level field of a stored raw row whose name looks like a credential's (a word key,
-- token, secret, password in any case or separator, or the one-word compounds), as the loader now
-- does (src/known-secrets.ts). Null stays null. Values masked this way cannot be recovered.
WITH masked AS (
  SELECT r.id,
         jsonb_object_agg(
           e.key,
           CASE
             WHEN e.value <> 'null'::jsonb AND (
                  e.key ~* '(^|[^a-z0-9])(key|token|secret[a-z0-9]*|passw[a-z0-9]*|pwd|credentials?)($|[^a-z0-9])'
               OR e.key ~ '[a-z0-9](Key|Token|Secret|Passw)([^a-z]|$)'
               OR lower(e.key) IN ('apikey', 'accesstoken', 'authtoken', 'refreshtoken', 'secretkey',
                                   'privatekey', 'clientsecret'))
             THEN '"***"'::jsonb
             ELSE e.value
           END) AS raw
  FROM etl.rejects r, jsonb_each(r.raw) e
  WHERE jsonb_typeof(r.raw) = 'object'
  GROUP BY r.id
)
UPDATE etl.rejects t SET raw = m.raw FROM masked m WHERE t.id = m.id AND t.raw IS DISTINCT FROM m.raw;
