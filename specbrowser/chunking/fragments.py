"""A link's fragment and the element id it names, found the way browsers find it.

HTML's "find a potential indicated element" looks for an element whose id is the fragment as
written, and only then for one whose id is the fragment percent-decoded (as UTF-8). Both steps
matter: ecmarkup writes ids such as ``sec-%abstractfoo%-constructor`` (``%ab`` is no escape
there: decoding it first would make ``\\ufffdstractfoo``), Bikeshed ids such as
``ref-for-multipart%2Fform-data-boundary-string``, while ecmarkup's multipage pages link to
``#%E2%84%9D`` for the id ``ℝ``.
"""

from __future__ import annotations

import re
from collections.abc import Container
from urllib.parse import unquote_to_bytes

_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_NON_ASCII_ESCAPES = re.compile(r"(?:%[89A-Fa-f][0-9A-Fa-f])+")


def decode_non_ascii(fragment: str) -> str:
    """``fragment`` with each run of escapes of non-ASCII bytes that is UTF-8 decoded
    (``%E2%84%9D`` → ``ℝ``), every other character and escape as written (``%ab`` alone is
    no UTF-8, ``%2F`` is ASCII). This undoes exactly what lxml's HTML serializer does to a
    non-ASCII ``href`` (the stored HTML of a section), and no more."""
    if "%" not in fragment:
        return fragment
    return _NON_ASCII_ESCAPES.sub(_decoded_run, fragment)


def _decoded_run(match: re.Match[str]) -> str:
    run = match.group(0)
    try:
        return unquote_to_bytes(run).decode("utf-8")
    except UnicodeDecodeError:
        return run


def decoded_fragment(fragment: str) -> str | None:
    """``fragment`` percent-decoded, or None when it holds no ``%`` escape or its bytes are not
    UTF-8 (then no id can equal its decoded form but one with U+FFFD, which no spec writes)."""
    if not _ESCAPE.search(fragment):
        return None
    try:
        return unquote_to_bytes(fragment).decode("utf-8")
    except UnicodeDecodeError:
        return None


def fragment_keys(fragment: str) -> tuple[str, ...]:
    """The ids ``fragment`` may name, in the order a browser tries them: as written, then
    percent-decoded when that differs (:func:`decoded_fragment`)."""
    decoded = decoded_fragment(fragment)
    return (fragment,) if decoded is None or decoded == fragment else (fragment, decoded)


def fragment_target(fragment: str, ids: Container[str]) -> str | None:
    """The id among ``ids`` that ``fragment`` names (the first of :func:`fragment_keys` held),
    or None when it names none."""
    return next((key for key in fragment_keys(fragment) if key in ids), None)
