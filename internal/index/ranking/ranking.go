// Package ranking holds what ranks perfumes against one another, as pure
// functions and constants: the similarity formula of similar and dupes
// (accord and note cosines and their weights, note rarity, rating
// confidence, the curated pull, the score's scale), their rules (a dupe's
// price tier, the product-line cap), the accord fit of match, and the
// weighting of a rating by its number of ratings.
//
// Only internal/index imports it (internal/archtest holds that): the
// index runs these rules in its hot loops over its own vectors and
// postings, and every surface ranks through the index. A new ranking
// (recommendations from liked perfumes, a popular order for match) takes
// its parts from here, so the same words mean the same numbers.
package ranking

// Format is the version of the kept neighbour lists: the similar and
// dupes lists the index ranks once per catalogue, stores in chunks and
// serves from (index.ComputeNeighbours, index.LoadNeighbours). It covers
// the rankings (this package's formula and rules, and the index's ranking
// with them in similar_rank.go: candidates, ties, the line cap's
// application) and the chunk encoding.
//
// Any change to the formula or the rules that changes a kept list must
// bump it. Format is part of index.NeighbourKey, under which lists are
// stored and shared: a replica or a restart loads the stored lists of the
// same key instead of ranking again, so without a bump it would serve
// lists ranked by the old rule beside answers ranked by the new one.
// index's TestKeptListsDigest fails ("bump the format") when the kept
// lists of a fixed sample of the bundled catalogue change while Format
// does not.
const Format = 1
