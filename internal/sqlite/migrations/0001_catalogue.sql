-- The catalogue: one row per perfume, keyed by the source's numeric id.
-- The record itself is kept as JSON (the in-memory index is built from it);
-- slug is a column so that uniqueness is enforced by the database.
CREATE TABLE perfumes (
    id         INTEGER PRIMARY KEY,
    slug       TEXT    NOT NULL UNIQUE,
    data       BLOB    NOT NULL,
    updated_at INTEGER NOT NULL
);

-- Small key/value facts about the database, such as the catalogue version.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT INTO meta (key, value) VALUES ('catalogue_version', 0);
