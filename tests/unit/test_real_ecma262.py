"""The real ECMA-262 (single page and multipage) from ../shared/specs, skipped when absent."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from specbrowser.chunking.enrich import (
    apply_toc_paths,
    finish_chunk_set,
    section_chunks,
    section_paths,
)
from specbrowser.chunking.markers import find_markers
from specbrowser.chunking.pipeline import chunk_sections, summary_packet_for
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.formats.ecmarkup import CHUNKING_RULES
from specbrowser.model import DOCUMENT_CHUNK_ID
from specbrowser.store import open_database
from tests.helpers import ECMA262, REAL_SHARED

pytestmark = [
    pytest.mark.real,
    REAL_SHARED,
    pytest.mark.skipif(
        not (ECMA262 / "index.html").exists(),
        reason=f"real specs not found at {ECMA262} (CI has ../shared beside the checkout)",
    ),
]

SECTION_START = re.compile(rb"<emu-(?:clause|annex|intro)\b[^>]*\sid=")


@pytest.fixture(scope="module")
def single_db(real_ingested, real_db):
    """The session's ECMA-262 ingest under the default policy: this module's copy of the
    database, and the ingest's result."""
    _, result = real_ingested("ecma262")
    return real_db("ecma262"), result


def test_section_count_equals_section_elements_with_an_id(single_db):
    _, result = single_db
    expected = len(SECTION_START.findall((ECMA262 / "index.html").read_bytes()))
    assert len(result.parsed.sections) == expected + 1 == 2254  # and the front matter
    kinds = {
        k: sum(s.kind == k for s in result.parsed.sections)
        for k in ("front-matter", "clause", "annex", "intro")
    }
    assert kinds == {"front-matter": 1, "clause": 2178, "annex": 74, "intro": 1}


def test_every_marker_resolves_and_every_parent_exists(single_db):
    path, _ = single_db
    db = open_database(path)
    chunks = {c.id: c for c in db.iter_chunks()}
    sections = {r[0]: r[1] for r in db.db.execute("SELECT id, parent_id FROM sections")}
    assert chunks[DOCUMENT_CHUNK_ID].layer == "document"
    for chunk in chunks.values():
        targets = [m.target_id for m in find_markers(chunk.text)]
        assert targets == chunk.subsections, chunk.id
        for target in targets:
            child = chunks[target]
            if child.parent_id is None:
                assert sections[child.section_id] == chunk.section_id
            else:
                assert child.parent_id == chunk.id
        if chunk.parent_id is not None:
            assert chunk.parent_id in chunks
        if chunk.section_id is None:  # only the document chunk has no section
            assert chunk.id == DOCUMENT_CHUNK_ID
            continue
        assert sections[chunk.section_id] is None or sections[chunk.section_id] in sections
    roots = [c for c in chunks.values() if c.parent_id is None and c.section_id is not None]
    assert len(roots) == len(sections)


def test_no_chunk_over_threshold_unless_flagged(single_db):
    _, result = single_db
    for chunk in result.chunks:
        if chunk.layer == "document":  # a synopsis, whole by design: never flagged
            assert chunk.over_threshold is None
            continue
        assert (chunk.size > 5000) == (chunk.over_threshold is not None), chunk.id
    assert result.stats.unresolved_markers == 0
    assert result.stats.marker_mismatches == 0


def test_known_section_shape(single_db):
    _, result = single_db
    chunks = {c.id: c for c in result.chunks}
    if_statement = chunks["sec-if-statement"]
    assert if_statement.title.endswith("The if Statement")
    assert if_statement.subsections == [
        "sec-if-statement-static-semantics-early-errors",
        "sec-if-statement-runtime-semantics-evaluation",
    ]
    assert "```bnf" in if_statement.text
    tables = [c for c in result.chunks if c.breakdown_tag == "emu-table"]
    assert tables and all(c.title.startswith("Table ") for c in tables)


def test_multipage_gives_the_same_sections(single_db, real_ingested):
    _, result = single_db
    multi = real_ingested("ecma262-multipage")[1]
    assert multi.parsed.document.kind == "ecmarkup-multipage"
    single_key = [(s.id, s.title, s.parent_id, s.ordinal) for s in result.parsed.sections]
    assert [(s.id, s.title, s.parent_id, s.ordinal) for s in multi.parsed.sections] == single_key
    multi_chunks = section_chunks(multi.chunks)
    single_chunks = section_chunks(result.chunks)
    assert [c.id for c in multi_chunks] == [c.id for c in single_chunks]
    differing = [a.id for a, b in zip(multi_chunks, single_chunks, strict=True) if a.text != b.text]
    # the front matter's "About this Specification" links each rendering to the other one
    assert differing == ["front-matter"], differing[:5]


def test_chunk_sections_from_stored_sections_equals_the_ingest(single_db):
    """Re-chunking from the stored own HTML (no source file) gives the stored chunk set."""
    path, result = single_db
    db = open_database(path)
    sections = db.sections.all()
    stored = list(db.iter_chunks())
    again = chunk_sections(sections, ChunkPolicy(), rules=CHUNKING_RULES).chunks
    assert again == [
        replace(c, retrieval_text="", toc_path=None, mismatch=None) for c in section_chunks(stored)
    ]
    assert len(again) == len(result.chunks) - 1 > 2253
    packet = summary_packet_for(sections, ChunkPolicy(), CHUNKING_RULES)
    rebuilt = finish_chunk_set(db.sections.document(), sections, again, 5000, packet=packet)
    apply_toc_paths(rebuilt, section_paths(sections, db.toc.load()))
    assert rebuilt == stored
