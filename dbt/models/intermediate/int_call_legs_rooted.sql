-- The root call of every child leg: walks parent_call_uuid up until a leg without a parent (or
-- whose parent is not loaded yet; then the farthest loaded ancestor is the root). Only child legs
-- are walked (a few percent of calls); a leg without a parent is its own root. Depth is capped at
-- 20 so a cycle in bad data cannot loop. The walk is macro call_roots, which fct_calls runs on the
-- legs of its window only.
{{ call_roots(ref('stg_platform__cdrs'), ref('stg_platform__cdrs')) }}
