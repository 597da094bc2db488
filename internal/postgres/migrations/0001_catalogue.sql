-- The catalogue: one row per perfume, keyed by the source's numeric id.
-- The record is kept as json (not jsonb) so the stored text is exactly what
-- the service wrote: an import compares digests of it to tell changed rows
-- from unchanged ones. slug is a column so the database enforces uniqueness.
CREATE TABLE perfumes (
    id         BIGINT      PRIMARY KEY,
    slug       TEXT        NOT NULL UNIQUE,
    data       JSON        NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

-- Small key/value facts about the database, such as the catalogue version.
CREATE TABLE meta (
    key   TEXT   PRIMARY KEY,
    value BIGINT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('catalogue_version', 0);
