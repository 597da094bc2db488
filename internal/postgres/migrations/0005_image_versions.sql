-- The content version of each served image (a short hash of its bytes; for
-- a drawn bottle, of its drawing), so that image URLs can carry it
-- (".../31861.jpg?v=<version>") and change when the image does. Every
-- replica keeps them all in memory and reloads them with the job states.
CREATE TABLE image_versions (
    kind       TEXT        NOT NULL CHECK (kind IN ('source', 'photo', 'nobg', 'render')),
    id         BIGINT      NOT NULL,
    version    TEXT        NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (kind, id)
);

-- The images stored so far: the version is the first 12 hexadecimal digits
-- of the SHA-256 of the bytes, as the image host computes it.
INSERT INTO image_versions (kind, id, version, updated_at)
SELECT kind, id, substr(encode(sha256(data), 'hex'), 1, 12), updated_at
FROM image_blobs WHERE kind IN ('photo', 'nobg');

-- Drawn bottles are kept once drawn, as blobs of their own kind.
ALTER TABLE image_blobs DROP CONSTRAINT image_blobs_kind_check;
ALTER TABLE image_blobs ADD CONSTRAINT image_blobs_kind_check
    CHECK (kind IN ('source', 'photo', 'nobg', 'render'));
