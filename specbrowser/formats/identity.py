"""A spec's identity: its canonical URL and shortname, read from the bytes of its first page.

Read with regular expressions over the bytes the parse has already read (a few milliseconds on
ECMA-262), in this order, the first found winning for each field:

- ``<link rel="canonical" href="…">`` (Bikeshed for the W3C, ReSpec), in the page's head;
- ecmarkup source metadata (``<pre class="metadata">``: ``location:`` and ``shortname:``);
- ecmarkup's rendered version heading (``<h1 class="version">Draft ECMA-262 / …``) or
  shortname heading (``<h1 class="shortname">`` of a proposal); the location of ECMA-262 and
  ECMA-402, which their rendering does not print, is the one ecmarkup's biblio gives them
  (:data:`ECMARKUP_LOCATIONS`); a proposal whose shortname links to (or whose ``location:``
  is) its repository in the TC39 organisation, ``https://github.com/tc39/NAME``, is published
  at ``https://tc39.es/NAME/``, where other specs link to it (:func:`tc39_pages_url`);
- Bikeshed's own reference data (``"shortname":"fetch",…,"status":"local"``); a WHATWG
  standard's URL follows from it (``https://fetch.spec.whatwg.org/``);
- xml2rfc's RFC number (``<meta name="rfc.number">`` or ``<dd class="rfcnumber">``):
  ``https://www.rfc-editor.org/rfc/rfcN`` (other hosts' URLs of the RFC are its aliases,
  :func:`url_aliases`);
- xml2rfc's Internet-Draft name (``<meta name="ietf.draft" content="draft-…-19">``):
  ``https://datatracker.ietf.org/doc/html/draft-…-19`` (each version is its own document, as
  its URL is; the shortname is the name without the version: ``draft-…``).
"""

from __future__ import annotations

import html
import re

from specbrowser.model import SpecIdentity

ECMARKUP_LOCATIONS = {
    "ECMA-262": "https://tc39.es/ecma262/",
    "ECMA-402": "https://tc39.es/ecma402/",
}
"""Where ecmarkup's bundled biblio (``@tc39/ecma262-biblio``) places the standards whose
rendered pages do not print their location; proposals link to them at these URLs."""

_CANONICAL = re.compile(
    rb"<link\b(?=[^>]*\brel=[\"']?canonical\b)[^>]*\bhref=[\"']?([^\"'\s>]+)", re.IGNORECASE
)
_METADATA = re.compile(rb"<pre\s+class=[\"']?metadata[\"']?>(.*?)</pre>", re.DOTALL)
_VERSION_HEADING = re.compile(rb"<h1 class=\"version\">[^<]*?\b(ECMA-\d+)\b")
_SHORTNAME_HEADING = re.compile(rb"<h1 class=\"shortname\">(.*?)</h1>", re.DOTALL)
_LINK_TEXT = re.compile(rb"<a\b[^>]*>([^<]+)</a>")
_LINK = re.compile(r"<a\b[^>]*\bhref=[\"']?([^\"'\s>]+)[^>]*>([^<]*)</a>")
_TC39_REPOSITORY = re.compile(r"^https?://github\.com/tc39/([A-Za-z0-9._-]+?)(?:\.git)?/?$")
_TC39_PAGES = re.compile(r"^https://tc39\.es/([A-Za-z0-9._-]+)/$")
_BIKESHED_LOCAL = re.compile(
    rb"\"shortname\":\"([^\"]+)\",\"spec\":\"[^\"]*\",\"status\":\"local\""
)
_WHATWG = re.compile(rb"resources\.whatwg\.org/logo-")
_RFC_NUMBER = re.compile(
    rb"<meta\s+(?:content=\"(\d+)\"\s+name=\"rfc\.number\"|name=\"rfc\.number\"\s+content=\"(\d+)\")"
    rb"|<dd class=\"rfcnumber\">\s*(\d+)"
)
_DRAFT_NAME = re.compile(
    rb"<meta\s+(?:content=\"(draft-[a-z0-9-]+)\"\s+name=\"ietf\.draft\""
    rb"|name=\"ietf\.draft\"\s+content=\"(draft-[a-z0-9-]+)\")"
)
_DRAFT_VERSION = re.compile(r"-\d{2}$")
HEAD_BYTES = 262_144
"""How far into the page the ``<head>`` patterns (canonical link, source metadata, RFC number)
are looked for; the headings and Bikeshed's reference data are searched in the whole page."""


def spec_identity(data: bytes) -> SpecIdentity:
    """The canonical URL and shortname of the spec whose first page is ``data`` (either None
    when the page does not say)."""
    head = data[:HEAD_BYTES]
    url: str | None = None
    shortname: str | None = None
    if match := _CANONICAL.search(head):
        url = _text(match.group(1))
    home: str | None = None  # where the shortname links: a repository, for a proposal
    if match := _METADATA.search(head):
        fields = dict(
            (key.strip().lower(), html.unescape(value.strip()))
            for key, _, value in (
                line.partition(":") for line in _text(match.group(1)).splitlines()
            )
            if value.strip()
        )
        url = url or fields.get("location")
        shortname = fields.get("shortname")
        if shortname is not None and (link := _LINK.search(shortname)):  # a linked shortname
            home, shortname = link.group(1), link.group(2).strip() or None
    if shortname is None and (match := _VERSION_HEADING.search(data)):
        shortname = _text(match.group(1))
    if shortname is None and (match := _SHORTNAME_HEADING.search(data)):
        links = _LINK.findall(_text(match.group(1)))
        named = [(href, text.strip()) for href, text in links if text.strip()]
        if named:
            home, shortname = named[-1][0], html.unescape(named[-1][1])
    if shortname is None and (match := _BIKESHED_LOCAL.search(data)):
        shortname = _text(match.group(1))
        if url is None and _WHATWG.search(head):
            url = f"https://{shortname}.spec.whatwg.org/"
    if url is None and (match := _RFC_NUMBER.search(head)):
        number = next(g for g in match.groups() if g)
        url = f"https://www.rfc-editor.org/rfc/rfc{int(number)}"
        shortname = shortname or f"rfc{int(number)}"
    if url is None and (match := _DRAFT_NAME.search(head)):
        draft = _text(next(g for g in match.groups() if g))
        url = f"https://datatracker.ietf.org/doc/html/{draft}"
        shortname = shortname or _DRAFT_VERSION.sub("", draft)
    if url is None and shortname in ECMARKUP_LOCATIONS:
        url = ECMARKUP_LOCATIONS[shortname]
    url = tc39_pages_url(url) or url
    if url is None and home is not None:
        url = tc39_pages_url(home)
    return SpecIdentity(canonical_url=url, shortname=shortname)


def tc39_pages_url(url: str | None) -> str | None:
    """``https://tc39.es/NAME/`` for the TC39 organisation's repository
    ``https://github.com/tc39/NAME`` (GitHub Pages publishes every proposal there), else
    None."""
    match = _TC39_REPOSITORY.match(url or "")
    return f"https://tc39.es/{match.group(1)}/" if match else None


_RFC_URL = re.compile(r"^https://www\.rfc-editor\.org/rfc/rfc(\d+)$")
_DRAFT_URL = re.compile(r"^https://datatracker\.ietf\.org/doc/html/(draft-[a-z0-9-]+)$")


def url_aliases(canonical_url: str) -> list[str]:
    """The URL prefixes a link into the spec at ``canonical_url`` may start with: the URL
    itself, its ``http:`` form and, for an RFC, the other hosts that publish it
    (``https://www.rfc-editor.org/rfc/rfcN.html``, ``https://datatracker.ietf.org/doc/html/rfcN``,
    ``https://httpwg.org/specs/rfcN.html``), for an Internet-Draft the IETF's archive and tools
    hosts (``https://www.ietf.org/archive/id/draft-…-19.html``), for a TC39 proposal its older
    GitHub Pages host (``https://tc39.github.io/NAME/``)."""
    found = [canonical_url]
    if match := _RFC_URL.match(canonical_url):
        number = match.group(1)
        found += [
            f"{canonical_url}.html",
            f"https://datatracker.ietf.org/doc/html/rfc{number}",
            f"https://httpwg.org/specs/rfc{number}.html",
            f"https://tools.ietf.org/html/rfc{number}",
        ]
    if match := _DRAFT_URL.match(canonical_url):
        draft = match.group(1)
        found += [
            f"https://www.ietf.org/archive/id/{draft}.html",
            f"https://www.ietf.org/archive/id/{draft}.txt",
            f"https://tools.ietf.org/html/{draft}",
        ]
    if match := _TC39_PAGES.match(canonical_url):
        found.append(f"https://tc39.github.io/{match.group(1)}/")
    found += [url.replace("https://", "http://", 1) for url in found if url.startswith("https:")]
    return found


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").strip()
