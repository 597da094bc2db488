"""The Python client of the fragrance data service's API.

Every endpoint is a typed method (generated from the service's OpenAPI
document; the answers are TypedDicts), and by hand: the key from an
argument or FRAGRANCE_API_KEY, problems raised as ApiError with the code,
detail and request id, 429 and 503 retried after Retry-After, page
iterators, image URLs with the documented fallback, and sync(), which walks
the change feed to copy the catalogue and keep it up to date.
"""

from ._client import ApiError, Change, Client, Image, Sync, image_url
from ._generated import *  # noqa: F401,F403  (the answers' types)

__all__ = ["ApiError", "Change", "Client", "Image", "Sync", "image_url"]
__version__ = "1.0.0"
