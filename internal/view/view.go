// Package view is the one view of the catalogue that every surface shows:
// the shapes of the API's answers (a perfume as a list item and as a
// detail, similar, dupe and match items, counts, pages), the values derived
// for them (note intensities, the public URLs of images and buy links,
// accord colours, perfumer slugs), and the defaults, maximums and
// validation rules of their parameters. The JSON API encodes these shapes
// (its hand-written encoders are byte-checked against encoding/json of
// them), and the website, the structured data of product pages and the
// tools for language models read the same values from here, so that no
// surface derives a value its own way.
//
// It reads the in-memory index (package index) and imports no HTTP code.
package view
