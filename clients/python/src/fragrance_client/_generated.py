"""Generated from the service's OpenAPI document by tools/generate.py: do not edit.

Document version 1.7.0.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict
from urllib.parse import quote


def _seg(value: str) -> str:
    return quote(value, safe="")

class Accord(TypedDict):
    """A main accord of a perfume."""

    name: str
    #: 0–100, relative to the perfume's strongest accord (100); at most one decimal.
    strength: float
    #: Hex colour #RRGGBB.
    color: str


class Note(TypedDict):
    """A note of the pyramid."""

    name: str
    #: Derived from the note's place in its layer: the first note is 100, falling linearly to 50 for the last (a single note is 100); one decimal.
    intensity: float


class NotePyramid(TypedDict):
    """Notes by layer; each layer may be empty."""

    #: Top notes, most prominent first.
    top: list[Note]
    #: Middle (heart) notes, most prominent first.
    middle: list[Note]
    #: Base notes, most prominent first.
    base: list[Note]
    #: Notes the source gives without a pyramid, most prominent first.
    unplaced: list[Note]


class Seasons(TypedDict):
    """Share of season votes, each 0–100."""

    #: Vote share, 0–100.
    winter: float
    #: Vote share, 0–100.
    spring: float
    #: Vote share, 0–100.
    summer: float
    #: Vote share, 0–100.
    fall: float


class DayNight(TypedDict):
    """Share of day and night votes, each 0–100."""

    #: Vote share, 0–100.
    day: float
    #: Vote share, 0–100.
    night: float


class Ranked(TypedDict):
    """One named vote share in a ranking."""

    name: str
    #: Vote share, 0–100.
    score: float


class Popularity(TypedDict):
    """Popularity."""

    #: Percentile of the rating count in the catalogue: the share of perfumes rated less often (equally rated ones count half); one decimal.
    score: float
    #: Number of rating votes.
    ratingCount: int
    #: 1 for the most rated perfume; equally rated perfumes share a rank.
    rank: int


class PerfumerRef(TypedDict):
    """PerfumerRef."""

    name: str
    #: Perfumer slug, as in /api/perfumers/{slug}.
    slug: str


class PerfumeListItem(TypedDict):
    """A perfume in a list."""

    #: Slug identifier, used as {slug} in paths.
    id: str
    #: Equal to id (clients use either as the {slug} path segment).
    slug: str
    name: str
    #: Brand display name.
    brand: str
    #: Launch year; null when unknown.
    year: int | None
    #: Mean rating on 0–5 (votes are 1–5), two decimals at most; null when unknown.
    rating: float | None
    #: Number of rating votes.
    ratingCount: int
    #: E.g. Eau de Parfum; null when unknown.
    concentration: str | None
    #: Marketed audience.
    gender: Literal["masculine", "feminine", "unisex"]
    #: Price level of the brand; null when unknown.
    priceTier: Literal["budget", "affordable", "premium", "luxury"] | None
    #: JPEG bottle image (about 20–30 KB), always available: /img/perfume/<numeric id>.jpg?v=<version>; the version changes when the image does.
    image: str
    #: WebP with a transparent background (about 15–50 KB): /img/perfume-nobg/<numeric id>.webp, with ?v=<version> once processed; answers 404 until processed.
    imageTransparent: str
    #: True once imageTransparent exists, so clients need not probe for a 404.
    imageTransparentAvailable: bool
    #: <base URL>/goto/<slug>: redirects to the shop.
    buyUrl: str
    #: Main accords, strongest first.
    accords: list[Accord]


class SimilarItem(TypedDict):
    """A perfume similar to the source."""

    #: Slug identifier, used as {slug} in paths.
    id: str
    #: Equal to id (clients use either as the {slug} path segment).
    slug: str
    name: str
    brand: str
    #: 0–100, how close the perfume is (100 = closest); at most one decimal.
    matchScore: float
    #: JPEG bottle image (about 20–30 KB), always available: /img/perfume/<numeric id>.jpg?v=<version>; the version changes when the image does.
    image: str
    #: WebP with a transparent background (about 15–50 KB): /img/perfume-nobg/<numeric id>.webp, with ?v=<version> once processed; answers 404 until processed.
    imageTransparent: str
    #: True once imageTransparent exists, so clients need not probe for a 404.
    imageTransparentAvailable: bool
    #: Accords both perfumes have, with this perfume's strengths.
    sharedAccords: list[Accord]
    #: Notes both perfumes have.
    sharedNotes: list[str]
    accords: list[Accord]


class PerfumeDetail(TypedDict):
    """A perfume in full: a flat object, no data wrapper."""

    #: Slug identifier, used as {slug} in paths.
    id: str
    #: Equal to id (clients use either as the {slug} path segment).
    slug: str
    name: str
    #: Brand display name.
    brand: str
    #: Launch year; null when unknown.
    year: int | None
    #: Mean rating on 0–5 (votes are 1–5), two decimals at most; null when unknown.
    rating: float | None
    #: Number of rating votes.
    ratingCount: int
    #: E.g. Eau de Parfum; null when unknown.
    concentration: str | None
    #: Marketed audience.
    gender: Literal["masculine", "feminine", "unisex"]
    #: Price level of the brand; null when unknown.
    priceTier: Literal["budget", "affordable", "premium", "luxury"] | None
    #: JPEG bottle image (about 20–30 KB), always available: /img/perfume/<numeric id>.jpg?v=<version>; the version changes when the image does.
    image: str
    #: WebP with a transparent background (about 15–50 KB): /img/perfume-nobg/<numeric id>.webp, with ?v=<version> once processed; answers 404 until processed.
    imageTransparent: str
    #: True once imageTransparent exists, so clients need not probe for a 404.
    imageTransparentAvailable: bool
    #: <base URL>/goto/<slug>: redirects to the shop.
    buyUrl: str
    #: Main accords, strongest first.
    accords: list[Accord]
    #: Brand slug, as used by the brand filter of /api/perfumes.
    brandSlug: str
    #: HTML entities decoded; where the source has none, a factual sentence built from the data.
    description: str
    #: Olfactory family; null when unknown.
    family: str | None
    #: Mean longevity vote, 1–5; null when unknown.
    longevity: float | None
    #: Mean sillage vote, 1–4; null when unknown.
    sillage: float | None
    notes: NotePyramid
    seasons: Seasons
    dayNight: DayNight
    #: The first five items of /api/perfumes/{slug}/similar.
    similarPerfumes: list[SimilarItem]
    perfumers: list[PerfumerRef]
    #: The four seasons by vote share, highest first.
    seasonRanking: list[Ranked]
    #: Day and night by vote share, highest first.
    timeRanking: list[Ranked]
    popularity: Popularity


class DupeItem(TypedDict):
    """A cheaper alternative: a similar item with priceTier and rating."""

    #: Slug identifier, used as {slug} in paths.
    id: str
    #: Equal to id (clients use either as the {slug} path segment).
    slug: str
    name: str
    brand: str
    #: 0–100, how close the perfume is (100 = closest); at most one decimal.
    matchScore: float
    #: JPEG bottle image (about 20–30 KB), always available: /img/perfume/<numeric id>.jpg?v=<version>; the version changes when the image does.
    image: str
    #: WebP with a transparent background (about 15–50 KB): /img/perfume-nobg/<numeric id>.webp, with ?v=<version> once processed; answers 404 until processed.
    imageTransparent: str
    #: True once imageTransparent exists, so clients need not probe for a 404.
    imageTransparentAvailable: bool
    #: Accords both perfumes have, with this perfume's strengths.
    sharedAccords: list[Accord]
    #: Notes both perfumes have.
    sharedNotes: list[str]
    accords: list[Accord]
    #: Always strictly lower than the source's.
    priceTier: Literal["budget", "affordable", "premium", "luxury"]
    #: Mean rating on 0–5 (votes are 1–5), two decimals at most; null when unknown.
    rating: float | None


class MatchItem(TypedDict):
    """A perfume matching a profile."""

    #: Slug identifier, used as {slug} in paths.
    id: str
    #: Equal to id (clients use either as the {slug} path segment).
    slug: str
    name: str
    brand: str
    #: 0–100, how close the perfume is (100 = closest); at most one decimal.
    matchScore: float
    #: Mean rating on 0–5 (votes are 1–5), two decimals at most; null when unknown.
    rating: float | None
    #: Number of rating votes.
    ratingCount: int
    #: JPEG bottle image (about 20–30 KB), always available: /img/perfume/<numeric id>.jpg?v=<version>; the version changes when the image does.
    image: str
    accords: list[Accord]


class SourceRef(TypedDict):
    """The perfume the results are relative to."""

    #: Slug identifier, used as {slug} in paths.
    id: str
    #: Equal to id (clients use either as the {slug} path segment).
    slug: str
    name: str
    brand: str


class DupeSource(TypedDict):
    """The perfume the dupes are cheaper than; a null priceTier means no dupes."""

    #: Slug identifier, used as {slug} in paths.
    id: str
    #: Equal to id (clients use either as the {slug} path segment).
    slug: str
    name: str
    brand: str
    #: JPEG bottle image (about 20–30 KB), always available: /img/perfume/<numeric id>.jpg?v=<version>; the version changes when the image does.
    image: str
    #: WebP with a transparent background (about 15–50 KB): /img/perfume-nobg/<numeric id>.webp, with ?v=<version> once processed; answers 404 until processed.
    imageTransparent: str
    #: Mean rating on 0–5 (votes are 1–5), two decimals at most; null when unknown.
    rating: float | None
    #: Price level of the brand; null when unknown.
    priceTier: Literal["budget", "affordable", "premium", "luxury"] | None


class FacetCount(TypedDict):
    """One value of a facet and its number of perfumes in the filtered set."""

    #: The value: a gender, season, time, accord or note name, or a year (as a string).
    value: str
    count: int


class Facets(TypedDict):
    """Counts per value over the whole filtered set, only of the facets asked for (facets=)."""

    gender: NotRequired[list[FacetCount]]
    season: NotRequired[list[FacetCount]]
    time: NotRequired[list[FacetCount]]
    accords: NotRequired[list[FacetCount]]
    notes: NotRequired[list[FacetCount]]
    year: NotRequired[list[FacetCount]]


class PerfumePage(TypedDict):
    """One page of perfumes. data is the only array at the top level."""

    data: list[PerfumeListItem]
    #: Number of items matching, over all pages.
    total: int
    #: The page answered (1-based).
    page: int
    #: Number of pages at this limit; 0 when total is 0.
    pages: int
    #: The effective limit, after clamping to the maximum.
    limit: int
    facets: NotRequired[Facets]
    #: With ids: the slugs asked for that no perfume has, in the order asked (empty when all were found). Absent without ids.
    missing: NotRequired[list[str]]


class Tombstone(TypedDict):
    """A perfume deleted from the catalogue: its last slug as id."""

    #: The deleted perfume's slug.
    id: str
    deleted: Literal[true]


class ChangePage(TypedDict):
    """One page of the change feed."""

    data: list[PerfumeDetail | Tombstone]
    #: Opaque cursor after the last change of this page (the given one when the page is empty); pass it as since.
    nextCursor: str
    #: Whether more changes follow nextCursor now.
    hasMore: bool


class SimilarList(TypedDict):
    """SimilarList."""

    source: SourceRef
    data: list[SimilarItem]
    #: Number of items in data.
    total: int
    #: The effective limit, after clamping to the maximum.
    limit: int


class DupeList(TypedDict):
    """DupeList."""

    source: DupeSource
    data: list[DupeItem]
    #: Number of items in data.
    total: int
    #: The effective limit, after clamping to the maximum.
    limit: int


class MatchFilters(TypedDict):
    """The filters applied, echoed with canonical names; null for a filter not given. A described match (with q, an exclusion or sort) adds excluded, brand and ignored; accords, notes, gender, season and time then include what q was understood to ask."""

    #: Canonical names of the accords asked for.
    accords: list[str]
    #: Accord name → the strength asked for (100 when not given).
    accordStrengths: dict[str, float]
    #: Canonical names of the notes asked for.
    notes: list[str]
    gender: Literal["masculine", "feminine", "unisex"] | None
    season: Literal["winter", "spring", "summer", "fall"] | None
    time: Literal["day", "night"] | None
    #: Names of the accords and notes excluded (by a leading - or a negation in q).
    excluded: NotRequired[list[str]]
    #: The brand q named (only its perfumes are listed); null when none.
    brand: NotRequired[str | None]
    #: The words of q not understood, in order (folded: lowercase, without accents).
    ignored: NotRequired[list[str]]


class MatchList(TypedDict):
    """MatchList."""

    data: list[MatchItem]
    filters: MatchFilters
    #: Number of items matching, over all pages.
    total: int
    #: The page answered (1-based).
    page: int
    #: Number of pages at this limit; 0 when total is 0.
    pages: int
    #: The effective limit, after clamping to the maximum.
    limit: int


class Brand(TypedDict):
    """Brand."""

    name: str
    slug: str
    #: Perfumes of the brand.
    count: int


class BrandList(TypedDict):
    """BrandList."""

    data: list[Brand]
    total: int


class NoteCount(TypedDict):
    """NoteCount."""

    name: str
    #: Perfumes with the note.
    count: int


class NoteList(TypedDict):
    """NoteList."""

    data: list[NoteCount]
    #: Number of distinct notes in the catalogue.
    total: int
    #: The effective limit; present only when limit was given.
    limit: NotRequired[int]


class Perfumer(TypedDict):
    """Perfumer."""

    name: str
    slug: str
    #: Perfumes by the perfumer.
    count: int


class PerfumerList(TypedDict):
    """PerfumerList."""

    data: list[Perfumer]
    total: int


class PerfumerDetail(TypedDict):
    """A perfumer with one page of their perfumes, most rated first."""

    name: str
    slug: str
    #: Perfumes by the perfumer.
    count: int
    perfumes: PerfumePage


class AccordCount(TypedDict):
    """AccordCount."""

    name: str
    #: Perfumes with the accord.
    count: int
    #: Hex colour #RRGGBB.
    color: str


class AccordList(TypedDict):
    """AccordList."""

    data: list[AccordCount]
    #: Number of accords matching search (all accords without it).
    total: int
    #: The effective limit, after clamping to the maximum.
    limit: int


class Health(TypedDict):
    """Health."""

    #: ok when ready, starting before.
    status: Literal["ok", "starting"]
    #: False until the catalogue is loaded (and while a component is not ready).
    ready: bool
    #: Named component states, e.g. {"store": "ok", "limiter": "redis"}; absent when none are reported.
    components: NotRequired[dict[str, str]]
    #: Perfumes in the loaded catalogue; 0 before it is loaded.
    perfumes: int
    #: The service's version.
    version: str


class DayUsage(TypedDict):
    """One UTC day of a key's requests."""

    #: The UTC day, YYYY-MM-DD.
    date: str
    #: Requests of the key that day, refused ones included.
    requests: int
    #: Requests by status class: 2xx, 4xx, 5xx, and 429 (refused by a rate limit) apart from 4xx.
    byStatus: dict[str, int]
    #: Requests by endpoint name (perfumes.list, perfumes.detail, ..., usage).
    byEndpoint: dict[str, int]


class UsageReport(TypedDict):
    """The key's requests over the last days (counts of this replica not yet stored included)."""

    keyPrefix: str
    today: DayUsage
    #: One entry per day, oldest first, days without requests included; the last is today.
    days: list[DayUsage]
    #: Requests by endpoint name over days.
    endpoints: dict[str, int]
    #: Requests over days.
    total: int


class UsageKey(TypedDict):
    """UsageKey."""

    #: The key's display prefix (fds_ and 8 characters); the key itself is never shown again.
    prefix: str
    #: The key's name; absent when it has none.
    name: NotRequired[str]
    tier: Literal["free", "basic", "pro", "enterprise"]
    state: Literal["active", "suspended", "revoked"]
    createdAt: str


class UsageLimits(TypedDict):
    """The key's limits: its tier's, with the key's own overrides."""

    #: Requests admitted in any 60 seconds.
    perMinute: int
    #: Requests admitted in any 24 hours.
    perDay: int


class UsageRemaining(TypedDict):
    """Requests each window admits now, this request counted."""

    minute: NotRequired[int]
    day: NotRequired[int]


class UsageResetSeconds(TypedDict):
    """Seconds until the oldest request counted in each window leaves it (0 when it counts none)."""

    minute: NotRequired[int]
    day: NotRequired[int]


class Usage(TypedDict):
    """The calling key: its tier, limits, what is left of each window and its usage."""

    key: UsageKey
    #: The key's limits: its tier's, with the key's own overrides.
    limits: UsageLimits
    #: Requests each window admits now, this request counted.
    remaining: UsageRemaining
    #: Seconds until the oldest request counted in each window leaves it (0 when it counts none).
    resetSeconds: UsageResetSeconds
    usage: UsageReport


class FieldError(TypedDict):
    """FieldError."""

    #: The query parameter, e.g. limit (query: the query string itself).
    parameter: str
    message: str


class Problem(TypedDict):
    """RFC 9457 problem details, the body of every error under /api."""

    #: Documentation address of the code, relative to the service: /docs/errors#<code>.
    type: str
    #: Short summary, stable per code (e.g. Rate limit exceeded).
    title: str
    status: int
    #: What went wrong with this request; may be empty.
    detail: str
    #: Stable machine code.
    code: Literal["invalid_parameter", "missing_api_key", "invalid_api_key", "revoked_api_key", "suspended_api_key", "origin_not_allowed", "not_found", "method_not_allowed", "rate_limited", "daily_limit_exceeded", "unavailable", "internal_error"]
    #: Repeats title, for the hosted service's clients.
    error: str
    #: 400 only: every invalid parameter.
    errors: NotRequired[list[FieldError]]
    #: 429 only: seconds until a request would be admitted.
    retryAfter: NotRequired[int]
    #: 429 only: the same in milliseconds.
    retryAfterMs: NotRequired[int]
    #: 429 only: the windows that refused (failed_key_checks: too many failed key checks from the client's IP; usage_minute, usage_day: the key's budget for /api/usage).
    violatedPolicies: NotRequired[list[Literal["minute", "day", "failed_key_checks", "usage_minute", "usage_day"]]]
    #: 429 daily_limit_exceeded only: always 0.
    dailyRemaining: NotRequired[int]


class RecommendReason(TypedDict):
    """What a recommendation shares with one liked perfume."""

    perfume: SourceRef
    #: The accords it shares with that perfume, with its own strengths, strongest first.
    accords: list[Accord]
    #: The notes it shares with that perfume, in pyramid order.
    notes: list[str]


class Recommendation(TypedDict):
    """A perfume recommended for a taste: a match item with its transparent image and its reasons."""

    #: Slug identifier, used as {slug} in paths.
    id: str
    #: Equal to id (clients use either as the {slug} path segment).
    slug: str
    name: str
    brand: str
    #: 0–100, how close the perfume is to the taste (100 = closest); at most one decimal.
    matchScore: float
    #: Mean rating on 0–5 (votes are 1–5), two decimals at most; null when unknown.
    rating: float | None
    #: Number of rating votes.
    ratingCount: int
    #: JPEG bottle image (about 20–30 KB), always available: /img/perfume/<numeric id>.jpg?v=<version>; the version changes when the image does.
    image: str
    #: Transparent-background WebP: /img/perfume-nobg/<numeric id>.webp (404 until processed).
    imageTransparent: str
    accords: list[Accord]
    #: What it shares with which liked perfume, the liked perfumes sharing the most first (at most three).
    reasons: list[RecommendReason]


class RecommendList(TypedDict):
    """RecommendList."""

    #: The liked perfumes, in the order given.
    source: list[SourceRef]
    data: list[Recommendation]
    #: How many perfumes are close to the taste at all.
    total: int
    page: int
    pages: int
    limit: int


class SiteSearchAnswerPerfumesItem(TypedDict):
    """SiteSearchAnswerPerfumesItem."""

    name: str
    #: Brand display name.
    brand: str
    #: The perfume's id, as in /api/perfumes/{slug} and the page /perfumes/{slug}.
    slug: str
    #: JPEG with background; always available.
    image: str
    #: Transparent WebP; 404 until it is made (see /api/perfumes' imageTransparentAvailable).
    imageTransparent: str


class SiteSearchAnswer(TypedDict):
    """SiteSearchAnswer."""

    perfumes: list[SiteSearchAnswerPerfumesItem]


class Endpoints:
    """One method per JSON endpoint under /api, typed as the document says."""

    def _get(self, path: str, query: dict[str, Any]) -> Any:
        raise NotImplementedError

    def list_perfumes(self, *, q: str | None = None, brand: str | None = None, page: int | None = None, limit: int | None = None, gender: str | None = None, accords: str | None = None, notes: str | None = None, season: Literal["winter", "spring", "summer", "fall"] | None = None, time: Literal["day", "night"] | None = None, year: str | None = None, min_rating: float | None = None, sort: Literal["popular", "rating", "newest", "oldest", "name"] | None = None, facets: str | None = None, ids: str | None = None) -> PerfumePage:
        """GET /api/perfumes: List and search perfumes."""
        return self._get(f"/api/perfumes", {"q": q, "brand": brand, "page": page, "limit": limit, "gender": gender, "accords": accords, "notes": notes, "season": season, "time": time, "year": year, "minRating": min_rating, "sort": sort, "facets": facets, "ids": ids})  # type: ignore[return-value]

    def match_perfumes(self, *, q: str | None = None, accords: str | None = None, notes: str | None = None, gender: Literal["masculine", "feminine", "unisex"] | None = None, season: Literal["winter", "spring", "summer", "fall"] | None = None, time: Literal["day", "night"] | None = None, sort: Literal["popular"] | None = None, page: int | None = None, limit: int | None = None) -> MatchList:
        """GET /api/perfumes/match: Match perfumes to a profile or a description."""
        return self._get(f"/api/perfumes/match", {"q": q, "accords": accords, "notes": notes, "gender": gender, "season": season, "time": time, "sort": sort, "page": page, "limit": limit})  # type: ignore[return-value]

    def recommend_perfumes(self, *, liked: str | None = None, disliked: str | None = None, avoid: str | None = None, gender: Literal["masculine", "feminine", "unisex"] | None = None, page: int | None = None, limit: int | None = None) -> RecommendList:
        """GET /api/perfumes/recommend: Recommendations from a taste."""
        return self._get(f"/api/perfumes/recommend", {"liked": liked, "disliked": disliked, "avoid": avoid, "gender": gender, "page": page, "limit": limit})  # type: ignore[return-value]

    def perfume_changes(self, *, since: str | None = None, limit: int | None = None) -> ChangePage:
        """GET /api/perfumes/changes: Bulk change feed."""
        return self._get(f"/api/perfumes/changes", {"since": since, "limit": limit})  # type: ignore[return-value]

    def get_perfume(self, slug: str) -> PerfumeDetail:
        """GET /api/perfumes/{slug}: Full perfume details."""
        return self._get(f"/api/perfumes/{_seg(slug)}", {})  # type: ignore[return-value]

    def similar_perfumes(self, slug: str, *, limit: int | None = None) -> SimilarList:
        """GET /api/perfumes/{slug}/similar: Similar perfumes."""
        return self._get(f"/api/perfumes/{_seg(slug)}/similar", {"limit": limit})  # type: ignore[return-value]

    def dupe_perfumes(self, slug: str, *, limit: int | None = None) -> DupeList:
        """GET /api/perfumes/{slug}/dupes: Cheaper alternatives."""
        return self._get(f"/api/perfumes/{_seg(slug)}/dupes", {"limit": limit})  # type: ignore[return-value]

    def list_brands(self, *, q: str | None = None) -> BrandList:
        """GET /api/brands: List brands with perfume counts."""
        return self._get(f"/api/brands", {"q": q})  # type: ignore[return-value]

    def list_notes(self, *, limit: int | None = None) -> NoteList:
        """GET /api/notes: List notes with frequency counts."""
        return self._get(f"/api/notes", {"limit": limit})  # type: ignore[return-value]

    def list_perfumers(self) -> PerfumerList:
        """GET /api/perfumers: List perfumers with perfume counts."""
        return self._get(f"/api/perfumers", {})  # type: ignore[return-value]

    def get_perfumer(self, slug: str, *, page: int | None = None, limit: int | None = None) -> PerfumerDetail:
        """GET /api/perfumers/{slug}: Perfumer with paginated perfumes."""
        return self._get(f"/api/perfumers/{_seg(slug)}", {"page": page, "limit": limit})  # type: ignore[return-value]

    def list_accords(self, *, search: str | None = None, limit: int | None = None) -> AccordList:
        """GET /api/accords: List accords."""
        return self._get(f"/api/accords", {"search": search, "limit": limit})  # type: ignore[return-value]

    def get_usage(self, *, days: int | None = None) -> Usage:
        """GET /api/usage: The calling key's usage."""
        return self._get(f"/api/usage", {"days": days})  # type: ignore[return-value]

    def site_search(self, *, q: str | None = None, limit: int | None = None) -> SiteSearchAnswer:
        """GET /api/search: Site search (no key)."""
        return self._get(f"/api/search", {"q": q, "limit": limit})  # type: ignore[return-value]
