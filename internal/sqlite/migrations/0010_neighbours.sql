-- The index's neighbour lists (the most similar perfumes and the best
-- dupes of each), in opaque chunks under a key naming the catalogue and
-- the rankings they were made for: see catalog.NeighbourStore.
CREATE TABLE neighbour_chunks (
    key        TEXT    NOT NULL,
    chunk      INTEGER NOT NULL,
    data       BLOB    NOT NULL,
    created_at INTEGER NOT NULL, -- Unix milliseconds
    PRIMARY KEY (key, chunk)
);
