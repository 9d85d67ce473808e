-- Values the request implied for a rejected row (a CDR's direction), which the raw row does not
-- carry and a replay needs. NULL when the request implied nothing. Rejects stored before this
-- column kept them inside "issues" (each issue's "implied"); readers fall back to that.
ALTER TABLE etl.rejects ADD COLUMN implied jsonb;
