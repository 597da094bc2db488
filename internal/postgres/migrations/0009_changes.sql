-- The change feed: every perfume row carries the change sequence of its
-- last real change (insert or a changed record), and a deleted perfume
-- leaves a tombstone (its id and last slug) with the sequence of its deletion. meta's
-- change_seq is the last sequence given out. Existing rows are numbered
-- in id order.
ALTER TABLE perfumes ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
UPDATE perfumes SET seq = n.n FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM perfumes) n WHERE perfumes.id = n.id;
CREATE INDEX perfumes_seq ON perfumes (seq);
CREATE TABLE perfume_tombstones (
    id   BIGINT PRIMARY KEY,
    slug TEXT NOT NULL,
    seq  BIGINT NOT NULL
);
CREATE INDEX perfume_tombstones_seq ON perfume_tombstones (seq);
INSERT INTO meta (key, value) VALUES ('change_seq', (SELECT COUNT(*) FROM perfumes));
