-- The content version of each served image (a short hash of its bytes; for
-- a drawn bottle, of its drawing), so that image URLs can carry it
-- (".../31861.jpg?v=<version>") and change when the image does. The image
-- host keeps them all in memory. Images stored before this migration get
-- theirs when first served. Times are Unix milliseconds.
CREATE TABLE image_versions (
    kind       TEXT    NOT NULL CHECK (kind IN ('source', 'photo', 'nobg', 'render')),
    id         INTEGER NOT NULL,
    version    TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (kind, id)
) WITHOUT ROWID;
