"""The store and what ingest adds to a chunk set: several chunk sets per database (one per policy
version), the active set, stale sets, re-chunking from stored sections, the document chunk,
retrieval text and section ordinals.

Databases are built from ``sample_specs/toylang.html`` (38 sections: 37 and the front matter)
in ``tmp_path``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from specbrowser import store
from specbrowser.chunking.enrich import (
    apply_toc_paths,
    finish_chunk_set,
    section_chunks,
    section_paths,
    synopsis,
)
from specbrowser.chunking.labels import (
    drop_link_targets,
    part_label,
    retrieval_text,
    section_ordinal,
)
from specbrowser.chunking.markers import find_markers
from specbrowser.chunking.pipeline import chunk_sections, summary_packet_for
from specbrowser.chunking.policy import CONVERTER_VERSION, ChunkPolicy
from specbrowser.chunking.stats import ChunkSetStats, compute_stats
from specbrowser.errors import NotASpecbrowserDatabase, NotFoundError, SpecParseError
from specbrowser.formats.ecmarkup import CHUNKING_RULES
from specbrowser.model import DOCUMENT_CHUNK_ID, Chunk, Document, Section
from specbrowser.session.ingest import ingest
from specbrowser.session.stores import chunk_stats
from specbrowser.store.symbols import SymbolIndex
from tests.helpers import (
    SAMPLE,
    SAMPLE_MULTIPAGE,
    anchor_table_before_schema_12,
    set_fts_in_sync,
    write_spec,
)

pytestmark = pytest.mark.skipif(not SAMPLE.is_file(), reason="sample_specs/toylang.html absent")

SMALL = ChunkPolicy(threshold=800)
TOY_SUMMARY = "This Standard describes Toylang, a toy language for exercising specification tools."
"""The sample spec's document summary: the lead sentence of its Scope."""
SMALLER = ChunkPolicy(threshold=600)


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    """A copy of toylang.html that a test may change."""
    return Path(shutil.copy(SAMPLE, tmp_path / "toylang.html"))


def chunk_ids(db, version: str) -> list[str]:
    return [c.id for c in db.iter_chunks(version)]


# --- the file ---------------------------------------------------------------------------------


def test_a_new_database_and_a_compacted_one_have_large_pages(tmp_path, spec):
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)
    db = store.open_database(db_path)
    assert db.db.execute("PRAGMA page_size").fetchone()[0] == store.PAGE_SIZE
    db.db.execute("PRAGMA journal_mode = DELETE")
    db.db.execute("PRAGMA page_size = 4096")
    db.db.execute("VACUUM")  # as an older specbrowser wrote it
    assert db.db.execute("PRAGMA page_size").fetchone()[0] == 4096
    db.db.execute("PRAGMA journal_mode = WAL")  # as opening it now leaves it
    db.vacuum()
    assert db.db.execute("PRAGMA page_size").fetchone()[0] == store.PAGE_SIZE
    assert db.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert chunk_ids(db, SMALL.version)  # the rows came through
    db.close()


def test_a_new_database_is_written_in_the_rollback_journal_and_closed_in_the_log(tmp_path, spec):
    db_path = tmp_path / "t.db"
    db = store.open_database(db_path, create=True)
    assert db.log_on_close
    assert db.db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()
    assert db_path.read_bytes()[18:20] == b"\x02\x02"  # the header's write-ahead-log versions
    ingest([spec], tmp_path / "u.db", SMALL)
    assert sorted(p.name for p in tmp_path.iterdir() if ".db" in p.name) == ["t.db", "u.db"]
    assert (tmp_path / "u.db").read_bytes()[18:20] == b"\x02\x02"
    reopened = store.open_database(db_path)
    assert not reopened.log_on_close
    assert reopened.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    reopened.close()


# --- chunk sets -------------------------------------------------------------------------------


def test_new_policy_adds_a_chunk_set_and_makes_it_active(tmp_path, spec):
    db_path = tmp_path / "t.db"
    first = ingest([spec], db_path, SMALL)
    second = ingest([spec], db_path, SMALLER)
    assert (first.outcome, first.chunk_sets) == (store.INGEST_CREATED, 1)
    assert (second.outcome, second.chunk_sets) == (store.INGEST_ADDED, 2)
    db = store.open_database(db_path)
    assert db.active_version() == SMALLER.version
    assert chunk_ids(db, SMALL.version) == [c.id for c in first.chunks]
    assert chunk_ids(db, SMALLER.version) == [c.id for c in second.chunks]
    assert len(second.chunks) > len(first.chunks)
    sets = {s.version: s for s in db.sets.all()}
    assert sets[SMALLER.version].active and not sets[SMALL.version].active
    assert sets[SMALL.version].chunks == len(first.chunks)
    assert sets[SMALLER.version].over_threshold == second.stats.over_threshold
    assert db.db["sections"].count == 38


def test_same_bytes_and_policy_write_nothing_and_activate_their_set(tmp_path, spec):
    db_path = tmp_path / "t.db"
    first = ingest([spec], db_path, SMALL)
    ingest([spec], db_path, SMALLER)
    again = ingest([spec], db_path, SMALL)
    assert (again.outcome, again.chunk_sets, again.chunks) == ("unchanged", 2, [])
    assert again.stats == first.stats  # the spec's own, read from the set's rows
    db = store.open_database(db_path)
    assert db.active_version() == SMALL.version
    assert chunk_ids(db, SMALL.version) == [c.id for c in first.chunks]
    assert len(chunk_ids(db, SMALLER.version)) > len(first.chunks)


def test_same_policy_with_a_toc_file_replaces_only_its_own_set(tmp_path, spec):
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)
    ingest([spec], db_path, SMALLER)
    toc = tmp_path / "toc.json"
    toc.write_text("[]", encoding="utf-8")
    again = ingest([spec], db_path, SMALL, toc_file=toc)
    assert (again.outcome, again.chunk_sets) == (store.INGEST_REPLACED_SET, 2)
    db = store.open_database(db_path)
    assert db.active_version() == SMALL.version
    assert chunk_ids(db, SMALL.version) == [c.id for c in again.chunks]
    assert len(chunk_ids(db, SMALLER.version)) > len(again.chunks)


def _text_counts(db) -> tuple[int, int, int]:
    """(texts rows, texts some set's FTS5 index holds, distinct texts the chunk rows use)."""
    from specbrowser.store.schema import set_fts_table

    set_fts_in_sync(db)
    indexed: set[int] = set()
    for (version,) in db.db.execute("SELECT version FROM policies").fetchall():
        indexed |= {
            r[0] for r in db.db.execute(f"SELECT id FROM [{set_fts_table(version)}_docsize]")
        }
    return (
        db.db.execute("SELECT count(*) FROM texts").fetchone()[0],
        len(indexed),
        db.db.execute("SELECT count(DISTINCT text_id) FROM chunk_rows").fetchone()[0],
    )


def _text_keys(chunks):
    """The (title, text, retrieval text) of each chunk: what the texts table holds once."""
    return {(c.title, c.text, c.retrieval_text) for c in chunks}


def test_chunk_sets_share_the_texts_they_have_in_common(tmp_path, spec):
    db_path = tmp_path / "t.db"
    first = ingest([spec], db_path, SMALL)
    second = ingest([spec], db_path, SMALLER)
    db = store.open_database(db_path)
    distinct = _text_keys(first.chunks) | _text_keys(second.chunks)
    assert _text_counts(db) == (len(distinct),) * 3
    shared = _text_keys(first.chunks) & _text_keys(second.chunks)
    assert 0 < len(shared) < len(distinct)  # most sections fit both thresholds
    for version, result in ((SMALL.version, first), (SMALLER.version, second)):
        stored = list(db.iter_chunks(version))
        # a chunk's anchors are stored as the set's anchor map, not read back with it
        assert [vars(c) for c in stored] == [{**vars(c), "anchors": []} for c in result.chunks]


def test_overwriting_or_replacing_sets_drops_the_texts_no_set_uses(tmp_path, spec):
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)
    ingest([spec], db_path, SMALLER)
    db = store.open_database(db_path)
    before = _text_counts(db)
    doc = db.document_chunk(SMALL.version)
    with db.db.atomic():  # the SMALL set rewritten with another synopsis: its old text is unused
        chunks = list(db.iter_chunks(SMALL.version))
        chunks[0] = replace(chunks[0], text=doc.text + "\n\nrewritten")
        db.sets.insert(SMALL, chunks, ChunkSetStats(), "now", activate=False)
    assert _text_counts(db) == before  # one text swapped for another, none left over
    assert db.db.execute("SELECT count(*) FROM texts WHERE text = ?", [doc.text]).fetchone()[0] == 0
    spec.write_text(
        spec.read_text(encoding="utf-8").replace("sec-scope", "sec-range"), encoding="utf-8"
    )
    result = ingest([spec], db_path, SMALL)  # the spec replaced: every set, every text
    db = store.open_database(db_path)
    assert (
        _text_counts(db) == (len({(c.title, c.text, c.retrieval_text) for c in result.chunks}),) * 3
    )


def test_sections_hold_what_their_chunks_share(tmp_path, spec):
    """Heading path, TOC path, mismatch and section number are the section's; every chunk of
    the section reads them through the ``chunks`` view."""
    db_path = tmp_path / "t.db"
    result = ingest([spec], db_path, ChunkPolicy(threshold=300))
    db = store.open_database(db_path)
    rows = {
        r[0]: r[1:]
        for r in db.db.execute(
            "SELECT id, heading_path, toc_path, mismatch, section_ordinal FROM sections"
        )
    }
    subsections = [c for c in result.chunks if c.parent_id is not None]
    assert subsections
    for chunk in result.chunks[1:]:
        heading_path, toc_path, mismatch, ordinal = rows[chunk.section_id]
        assert json.loads(heading_path) == chunk.heading_path
        assert (json.loads(toc_path) if toc_path else None) == chunk.toc_path
        assert (mismatch, ordinal) == (chunk.mismatch, chunk.section_ordinal)


def test_changed_spec_replaces_every_set(tmp_path, spec):
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)
    ingest([spec], db_path, SMALLER)
    spec.write_text(
        spec.read_text(encoding="utf-8").replace("sec-scope", "sec-range"), encoding="utf-8"
    )
    result = ingest([spec], db_path, SMALL)
    assert (result.outcome, result.chunk_sets) == (store.INGEST_REPLACED_SPEC, 1)
    db = store.open_database(db_path)
    assert [s.version for s in db.sets.all()] == [SMALL.version]
    assert (
        db.db.execute("SELECT count(*) FROM sections WHERE id = ?", ["sec-range"]).fetchone()[0]
        == 1
    )
    assert (
        db.db.execute(
            "SELECT count(*) FROM chunks WHERE policy_version = ?", [SMALLER.version]
        ).fetchone()[0]
        == 0
    )
    assert db.db["documents"].count == 1


def test_same_bytes_parsed_differently_replaces_every_set(tmp_path, spec):
    """A newer parser can turn the same bytes into other sections; old sets would be stale."""
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)
    db = store.open_database(db_path)
    with db.db.atomic():
        db.db.execute("UPDATE documents SET sections_sha256 = ?", ["from-an-older-parser"])
    db.close()
    assert ingest([spec], db_path, SMALLER).outcome == store.INGEST_REPLACED_SPEC


def test_failed_ingest_keeps_every_set_as_it_was(tmp_path, spec, monkeypatch):
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(store.sets.ChunkSets, "insert", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ingest([spec], db_path, SMALLER)
    db = store.open_database(db_path)
    assert [(s.version, s.active) for s in db.sets.all()] == [(SMALL.version, True)]


def test_an_ingest_write_left_without_its_chunk_set_is_rolled_back(tmp_path, spec):
    from specbrowser.chunking.enrich import section_paths
    from specbrowser.formats import load_spec

    parsed = load_spec([spec])
    db = store.open_database(tmp_path / "t.db", create=True)
    begun = db.sets.begin_ingest(parsed.document, parsed.sections, SMALL.version)
    with pytest.raises(RuntimeError, match="after"), begun as write:
        write.write_spec(section_paths(parsed.sections, []), [], None)
    assert db.db.execute("SELECT count(*) FROM sections").fetchone()[0] == 0
    db.close()


def test_a_failing_spec_write_beside_a_child_leaves_the_database_as_it_was(tmp_path, monkeypatch):
    """The spec's tables are written while a forked child breaks sections down: a failure
    there rolls everything back and reaps the child."""
    from specbrowser.chunking import parallel

    if not parallel.sys.platform.startswith("linux"):
        pytest.skip("work is split over forked processes on Linux only")
    monkeypatch.setattr(parallel, "MIN_WEIGHT", 0)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    children: list[int] = []
    fork = parallel._fork
    monkeypatch.setattr(parallel, "_fork", lambda *a: _record(fork, children, *a))

    def broken(*args, **kwargs):
        raise OSError("disk gone")

    db_path = tmp_path / "t.db"
    ingest([SAMPLE], db_path, SMALL)
    before = db_path.read_bytes()
    monkeypatch.setattr(SymbolIndex, "replace", broken)
    changed = write_spec(tmp_path, '<emu-clause id="z"><h1>Z</h1><p>x</p></emu-clause>', "z.html")
    with pytest.raises(OSError, match="disk gone"):
        ingest([changed], db_path, SMALL)
    assert db_path.read_bytes() == before and children
    for pid in children:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def _record(fork, children, *args):
    pid, fd = fork(*args)
    children.append(pid)
    return pid, fd


def test_activate_switches_the_set_every_read_uses(tmp_path, spec):
    db_path = tmp_path / "t.db"
    small = ingest([spec], db_path, SMALL)
    ingest([spec], db_path, SMALLER)
    db = store.open_database(db_path)
    assert db.sets.activate(SMALL.version[:5]) == SMALL.version  # a unique prefix
    assert db.active_version() == SMALL.version
    assert db.sets.active_policy()[0] == SMALL
    assert [c.id for c in db.iter_chunks()] == [c.id for c in small.chunks]
    assert chunk_stats(db).chunks == len(small.chunks)
    assert [s.version for s in db.sets.all() if s.active] == [SMALL.version]


@pytest.mark.parametrize("version", ["nope", "", "0123456789abcdef"])
def test_activate_unknown_version_raises_and_changes_nothing(tmp_path, spec, version):
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)
    db = store.open_database(db_path)
    with pytest.raises(NotFoundError, match="no chunk set with policy version"):
        db.sets.activate(version)
    assert db.active_version() == SMALL.version


def make_stale(db, version: str) -> str:
    """Turn the set of ``version`` into one an older converter made: its stored settings JSON
    names the previous converter version, and (as for a real one) it is stored under the hash
    of those settings. Returns that version."""
    settings = json.loads(
        db.db.execute("SELECT settings FROM policies WHERE version = ?", [version]).fetchone()[0]
    )
    settings["converter_version"] = CONVERTER_VERSION - 1
    canonical = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    old_version = hashlib.sha256(canonical.encode()).hexdigest()[:12]
    with db.db.atomic():
        db.db.execute(
            "UPDATE policies SET settings = ?, version = ? WHERE version = ?",
            [json.dumps(settings), old_version, version],
        )
        db.db.execute(
            "UPDATE chunk_rows SET policy_version = ? WHERE policy_version = ?",
            [old_version, version],
        )
    return old_version


def test_stale_set_is_detected_and_still_readable(tmp_path, spec):
    db_path = tmp_path / "t.db"
    small = ingest([spec], db_path, SMALL)
    ingest([spec], db_path, SMALLER)
    db = store.open_database(db_path)
    old = make_stale(db, SMALL.version)
    sets = {s.version: s for s in db.sets.all()}
    assert {v: s.stale for v, s in sets.items()} == {old: True, SMALLER.version: False}
    assert sets[old].converter_version == CONVERTER_VERSION - 1
    assert sets[old].chunks == len(small.chunks)
    db.sets.activate(old)
    # the policy rebuilt from the stale settings hashes to today's version; reads must go by
    # the stored one
    assert db.sets.active_policy()[0].version == SMALL.version != old == db.active_version()
    assert db.chunk("sec-long-prose").text == next(
        c.text for c in small.chunks if c.id == "sec-long-prose"
    )
    assert chunk_stats(db).chunks == len(small.chunks)
    # re-ingesting with the same options adds a current set beside the stale one
    assert ingest([spec], db_path, SMALL).outcome == store.INGEST_ADDED


def test_old_schema_is_refused_with_a_re_ingest_message(tmp_path, spec):
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)
    db = store.open_database(db_path)
    with db.db.atomic():
        db.db.execute("UPDATE meta SET value = ? WHERE key = ?", ["1", "schema_version"])
    db.close()
    with pytest.raises(NotASpecbrowserDatabase, match="re-ingest"):
        store.open_database(db_path)


# --- re-chunking from stored sections -----------------------------------------------------------


@pytest.mark.parametrize("threshold", [400, 800, 5000])
def test_chunk_sections_from_stored_sections_equals_the_ingest(tmp_path, spec, threshold):
    policy = ChunkPolicy(threshold=threshold)
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, policy)
    spec.unlink()  # the source is not needed any more
    db = store.open_database(db_path)
    sections = db.sections.all()
    stored = list(db.iter_chunks())
    again = chunk_sections(sections, policy, rules=CHUNKING_RULES).chunks
    assert again == [
        replace(c, retrieval_text="", toc_path=None, mismatch=None) for c in section_chunks(stored)
    ]
    packet = summary_packet_for(sections, policy, CHUNKING_RULES)
    rebuilt = finish_chunk_set(db.sections.document(), sections, again, threshold, packet=packet)
    stored_toc = db.toc.load()  # the stored TOC: no source needed
    apply_toc_paths(rebuilt, section_paths(sections, stored_toc))
    assert rebuilt == stored


def test_chunk_sections_of_the_multipage_sample(tmp_path):
    if not SAMPLE_MULTIPAGE.is_dir():
        pytest.skip("sample_specs/toylang-multipage absent")
    db_path = tmp_path / "t.db"
    result = ingest([SAMPLE_MULTIPAGE], db_path, SMALL)
    db = store.open_database(db_path)
    again = chunk_sections(db.sections.all(), SMALL, rules=CHUNKING_RULES).chunks
    assert [(c.id, c.text, c.parent_id, c.over_threshold) for c in again] == [
        (c.id, c.text, c.parent_id, c.over_threshold) for c in section_chunks(result.chunks)
    ]


# --- section ordinals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "secnum, expected",
    [
        ("14.6.1", "14.6.1"),
        ("7", "7"),
        ("Annex B (normative)", "B"),
        ("Annex A (informative)", "A"),
        ("B.1.2", "B.1.2"),
        ("3.", "3"),
        ("", ""),
        ("Introduction", ""),
    ],
)
def test_section_ordinal_from_the_section_number(secnum, expected):
    assert section_ordinal(secnum) == expected


def test_every_chunk_carries_its_sections_ordinal(tmp_path, spec):
    result = ingest([spec], tmp_path / "t.db", SMALL)
    secnums = {s.id: s.secnum for s in result.parsed.sections}
    chunks = section_chunks(result.chunks)
    for chunk in chunks:
        assert chunk.section_ordinal == section_ordinal(secnums[chunk.section_id]), chunk.id
    by_id = {c.id: c for c in chunks}
    assert by_id["sec-intro"].section_ordinal == ""
    assert by_id["sec-algorithm-conventions"].section_ordinal == "2.2"
    annex = next(s for s in result.parsed.sections if s.secnum.startswith("Annex"))
    assert by_id[annex.id].section_ordinal == "A"
    subsection = next(c for c in chunks if c.parent_id == "sec-literal-markup")
    assert subsection.section_ordinal == by_id["sec-literal-markup"].section_ordinal != ""


def test_ordinals_are_pre_order_from_the_document_chunk(tmp_path, spec):
    result = ingest([spec], tmp_path / "t.db", SMALL)
    assert [c.ordinal for c in result.chunks] == list(range(len(result.chunks)))
    assert result.chunks[0].id == DOCUMENT_CHUNK_ID
    position = {c.id: c.ordinal for c in result.chunks}
    for chunk in result.chunks:
        for child in chunk.subsections:
            assert position[child] > chunk.ordinal


# --- retrieval text -----------------------------------------------------------------------------


def test_retrieval_text_of_a_section_root_chunk(tmp_path, spec):
    result = ingest([spec], tmp_path / "t.db", SMALL)
    chunk = next(c for c in result.chunks if c.id == "sec-algorithm-conventions")
    assert chunk.retrieval_text == (
        f"Document summary: {TOY_SUMMARY}\n"
        "Document: Toylang Language Specification\n"
        "Section: 2 Notational Conventions > 2.2 Algorithm Conventions\n"
        "Section summary: Algorithms are written as numbered lists of steps. Nested lists "
        "describe the sub-steps of a conditional or a loop.\n"
        "Content:\n" + drop_link_targets(chunk.text)
    )
    plain = ingest([spec], tmp_path / "u.db", replace(SMALL, summaries=False))
    chunk = next(c for c in plain.chunks if c.id == "sec-algorithm-conventions")
    assert chunk.retrieval_text == (
        "Document: Toylang Language Specification\n"
        "Section: 2 Notational Conventions > 2.2 Algorithm Conventions\n"
        "Content:\n" + drop_link_targets(chunk.text)
    )


def test_retrieval_text_drops_in_document_link_targets_only() -> None:
    text = (
        "See [`ToNumber`](#sec-tonumber) and [the spec](https://tc39.es/ecma262/), "
        "\\[\\[Prototype\\]\\] (kept) and "
        '[Subsection available: title "T" at sectionid: `sec-x-td-1`]'
    )
    assert drop_link_targets(text) == (
        "See [`ToNumber`] and [the spec](https://tc39.es/ecma262/), "
        "\\[\\[Prototype\\]\\] (kept) and "
        '[Subsection available: title "T" at sectionid: `sec-x-td-1`]'
    )


@given(st.text(alphabet="](#)a \n[", max_size=40))
def test_property_drop_link_targets_removes_every_target_right_after_a_bracket(markdown):
    """The same result as deleting each ``(#…)`` that follows a ``]`` (the look-behind rule)."""
    assert drop_link_targets(markdown) == re.sub(r"(?<=\])\(#[^()\s]*\)", "", markdown)


def test_a_retrieval_text_splits_into_header_and_body_at_its_content_line():
    """Stored apart for FTS5 snippets; a title ending in "Content:" is still header."""
    from specbrowser.chunking.labels import split_retrieval_text

    chunk = Chunk(
        id="s",
        section_id="s",
        parent_id=None,
        depth=0,
        layer="section",
        breakdown_tag=None,
        title="Table of Content:",
        heading_path=["1 Table of Content:"],
        text="Content:\nbody [a](#x)",
    )
    text = retrieval_text("Doc", chunk, [])
    header, body = split_retrieval_text(text)
    assert header + body == text and body == "Content:\nbody [a]"
    assert header == "Document: Doc\nSection: 1 Table of Content:\nContent:\n"


def test_retrieval_text_of_subsections_names_the_part_path(tmp_path, spec):
    result = ingest([spec], tmp_path / "t.db", SMALL)
    by_id = {c.id: c for c in result.chunks}
    paragraph = by_id["sec-literal-markup-p-1"]
    lines = paragraph.retrieval_text.split("\n")
    root = by_id["sec-literal-markup"].retrieval_text.split("\n")
    summary = next(line for line in root if line.startswith("Section summary: "))
    assert lines[:6] == [
        f"Document summary: {TOY_SUMMARY}",
        "Document: Toylang Language Specification",
        "Section: " + " > ".join(paragraph.heading_path),
        summary,  # a subsection shares its section's summary
        "Part: Some Toylang diagnostics use a bracketed…",  # its first words
        "Content:",
    ]
    assert paragraph.retrieval_text.endswith("\n" + drop_link_targets(paragraph.text))
    nested = next(c for c in result.chunks if c.depth == 2)
    parent = by_id[nested.parent_id]
    assert f"\nPart: {part_label(parent)} > {part_label(nested)}\n" in nested.retrieval_text
    titled = next(c for c in result.chunks if c.breakdown_tag == "emu-table" and c.title)
    assert f"\nPart: {titled.title}\n" in titled.retrieval_text


def test_retrieval_text_is_stored(tmp_path, spec):
    result = ingest([spec], tmp_path / "t.db", SMALL)
    db = store.open_database(tmp_path / "t.db")
    assert [c.retrieval_text for c in db.iter_chunks()] == [c.retrieval_text for c in result.chunks]
    assert all(
        c.retrieval_text.startswith(f"Document summary: {TOY_SUMMARY}\nDocument: ")
        for c in result.chunks
    )


def test_retrieval_text_header_without_heading_path():
    chunk = Chunk(
        id="x",
        section_id="x",
        parent_id=None,
        depth=0,
        layer="section",
        breakdown_tag=None,
        title="",
        heading_path=[],
        text="body",
    )
    assert retrieval_text("T", chunk, []) == "Document: T\nContent:\nbody"


# --- the document chunk -------------------------------------------------------------------------


def test_document_chunk_is_stored_first_and_shaped(tmp_path, spec):
    result = ingest([spec], tmp_path / "t.db", SMALL)
    db = store.open_database(tmp_path / "t.db")
    document = db.document_chunk()
    assert document is not None and document == result.chunks[0]
    assert (
        document.id,
        document.layer,
        document.section_id,
        document.parent_id,
        document.depth,
        document.ordinal,
        document.subsections,
        document.section_ordinal,
    ) == (DOCUMENT_CHUNK_ID, "document", None, None, 0, 0, [], "")
    assert document.title == "Toylang Language Specification"
    top_level = [c.title for c in db.top_level_chunks()]
    assert DOCUMENT_CHUNK_ID not in [c.id for c in db.top_level_chunks()]
    lines = document.text.split("\n")
    assert lines[0] == "# Toylang Language Specification"
    assert f"Summary: {TOY_SUMMARY}" in lines
    outline = lines[lines.index("Outline:") + 2 :]
    assert [line[2:].split(": ", 1)[0] for line in outline] == top_level  # each with its summary
    assert "- 1 Scope: " + TOY_SUMMARY in outline
    assert "ecmarkup-rendered" in document.text
    assert (
        f"38 sections, {len(top_level)} at top level, in {len(result.chunks)} chunks"
        in document.text
    )
    assert document.retrieval_text == (
        f"Document summary: {TOY_SUMMARY}\nDocument: Toylang Language Specification\nContent:\n"
        + document.text
    )


def test_document_chunk_keeps_the_stores_invariants(tmp_path, spec):
    result = ingest([spec], tmp_path / "t.db", SMALL)
    db = store.open_database(tmp_path / "t.db")
    assert db.chunk(DOCUMENT_CHUNK_ID).layer == "document"
    assert db.tree_parent_id(DOCUMENT_CHUNK_ID) is None
    assert [c.id for c in db.descendants(DOCUMENT_CHUNK_ID)] == [DOCUMENT_CHUNK_ID]
    assert not find_markers(result.chunks[0].text)
    stats = chunk_stats(db)
    assert stats.unresolved_markers == 0 and stats.marker_mismatches == 0
    assert stats.by_layer["document"] == 1 and stats.by_tag["(document)"] == 1
    ids = {c.id for c in result.chunks}
    for chunk in result.chunks:
        assert chunk.parent_id is None or chunk.parent_id in ids
        assert all(target in ids for target in chunk.subsections)


STATS_KEYS = [
    "sections",
    "chunks",
    "by_depth",
    "by_layer",
    "by_tag",
    "sizes",
    "over_threshold",
    "largest",
    "unresolved_markers",
    "marker_mismatches",
    "heading_mismatches",
    # the quality figures, added after the keys above (existing databases lack them)
    "total_chars",
    "breakdown_marker_chars",
    "section_marker_chars",
    "tiny_chunks",
    "mostly_marker_chunks",
    "sizes_without_markers",
    "grown_chunks",
]


def test_stored_stats_are_the_json_of_chunk_set_stats_and_read_back_equal(tmp_path, spec):
    result = ingest([spec], tmp_path / "t.db", SMALLER)
    db = store.open_database(tmp_path / "t.db")
    (stored,) = db.db.execute("SELECT stats FROM policies").fetchone()
    assert list(json.loads(stored)) == STATS_KEYS  # the keys existing databases hold
    assert stored == result.stats.to_json() and json.loads(stored)["by_depth"]["0"] > 1
    assert ChunkSetStats.from_json(stored) == result.stats == chunk_stats(db)
    assert db.sets.active_policy()[1] == result.stats


def test_stats_of_an_older_set_read_back_with_what_they_lack_empty():
    older = {"sections": 3, "chunks": 5, "by_depth": {"0": 4, "1": 1}, "sizes": {"max": 9}}
    stats = ChunkSetStats.from_json(json.dumps({**older, "unknown": 1}))
    assert (stats.sections, stats.chunks, stats.by_depth) == (3, 5, {0: 4, 1: 1})
    assert (stats.sizes.max, stats.sizes.median, stats.largest) == (9, 0, None)
    assert stats.by_layer == stats.heading_mismatches == stats.over_threshold == {}
    assert stats.unresolved_markers is None and not stats.markers_sound  # never counted
    assert stats.tiny_chunks is None and stats.sizes_without_markers is None
    assert stats.breakdown_marker_share is None and stats.mostly_marker_chunks is None
    assert ChunkSetStats.from_json(None) == ChunkSetStats.from_json("{}") == ChunkSetStats()


def test_document_chunk_over_the_threshold_is_not_flagged(tmp_path, spec):
    """The synopsis is whole by design: over the threshold, it is not an overrun."""
    result = ingest([spec], tmp_path / "t.db", ChunkPolicy(threshold=100))
    assert result.chunks[0].size > 100 and result.chunks[0].over_threshold is None
    flagged = [c for c in result.chunks if c.over_threshold == "unsplittable"]
    assert compute_stats(result.chunks, 38).over_threshold["unsplittable"] == len(flagged)


def test_synopsis_escapes_markdown_in_titles():
    document = Document(
        id="d", title="The *x* & <y>", kind="ecmarkup-rendered", source_paths=[], sha256=""
    )
    sections = [
        Section(
            id="s",
            parent_id=None,
            ordinal=0,
            depth=0,
            kind="clause",
            secnum="1",
            title="Object.prototype.__proto__ [ x ] `y` &amp;",
            html="",
            source_file="",
        )
    ]
    text = synopsis(document, sections, 2)
    assert "# The \\*x\\* & \\<y>" in text
    assert "- 1 Object.prototype.\\_\\_proto\\_\\_ \\[ x \\] \\`y\\` \\&amp;" in text


def test_a_section_with_the_document_chunk_id_is_refused(tmp_path):
    path = write_spec(
        tmp_path, f'<emu-clause id="{DOCUMENT_CHUNK_ID}"><h1>X</h1><p>x</p></emu-clause>'
    )
    with pytest.raises(SpecParseError, match="reserves"):
        ingest([path], tmp_path / "t.db", ChunkPolicy())
    assert not (tmp_path / "t.db").exists()


# --- the upgrade from schema 4 ---------------------------------------------------------------


def _downgrade_to_schema_4(path: Path) -> None:
    """Rewrite a schema-5 database the way specbrowser 4 stored it: one ``chunks`` table with
    every column, ``chunks_fts`` with its triggers, ``chunk_hashes``; no ``texts``."""
    db = store.open_database(path)
    with db.db.atomic():
        db.db.execute(
            "CREATE TABLE chunks_v4 AS SELECT policy_version, id, section_id, parent_id, "
            "subsections, depth, layer, breakdown_tag, title, heading_path, text, size, "
            "over_threshold, ordinal, section_ordinal, retrieval_text, toc_path, mismatch "
            "FROM chunks"
        )
        db.db.execute("DROP VIEW chunks")
        db.db.execute("DROP TABLE chunk_rows")
        db.db.table("texts").disable_fts()
        db.db.execute("DROP TABLE texts")
        db.db.execute("ALTER TABLE chunks_v4 RENAME TO chunks")
        db.db.table("chunks").enable_fts(
            ["title", "retrieval_text"],
            fts_version="FTS5",
            tokenize=store.FTS_TOKENIZER,
            create_triggers=True,
        )
        for column in ("heading_path", "toc_path", "mismatch", "section_ordinal"):
            db.db.execute(f"ALTER TABLE sections DROP COLUMN [{column}]")
        db.db.execute(
            "CREATE TABLE chunk_hashes (policy_version TEXT, chunk_id TEXT, content_hash TEXT)"
        )
        db.db.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    db.close()


def _ranges_known_after_an_upgrade(sets: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """The chunks an upgrade keeps: the same, but only a section that is one chunk within
    the threshold keeps its threshold range (the others' ranges are known only to a breakdown)."""
    return {
        version: [
            {
                **chunk,
                "holds_for": chunk["holds_for"]
                if chunk["holds_for"] and chunk["holds_for"][1] is None
                else None,
            }
            for chunk in chunks
        ]
        for version, chunks in sets.items()
    }


def _two_sets(tmp_path, spec) -> tuple[Path, dict[str, list[dict]]]:
    """A database with the SMALL and SMALLER sets, and every chunk of both (as dicts)."""
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)
    ingest([spec], db_path, SMALLER)
    db = store.open_database(db_path)
    chunks = {v: [vars(c) for c in db.iter_chunks(v)] for v in (SMALL.version, SMALLER.version)}
    db.close()
    return db_path, chunks


def test_a_schema_5_database_gains_the_threshold_ranges_it_can_know(tmp_path, spec, caplog):
    import logging

    from specbrowser.store import schema as store_schema

    caplog.set_level(logging.INFO, logger="specbrowser")
    db_path, before = _two_sets(tmp_path, spec)
    db = store.open_database(db_path)
    assert any(
        c["holds_for"] and c["holds_for"][1] is not None for cs in before.values() for c in cs
    )
    with db.db.atomic():
        db.db.execute("DROP VIEW chunks")
        for column in ("threshold_lo", "threshold_hi"):
            db.db.execute(f"ALTER TABLE chunk_rows DROP COLUMN [{column}]")
        db.db.execute(
            "CREATE VIEW chunks AS "
            + store_schema.CHUNKS_VIEW.replace(", r.threshold_lo, r.threshold_hi", "")
        )
        db.db.execute("DROP INDEX sections_outline")
        db.db.execute("CREATE INDEX sections_ordinal ON sections (ordinal)")
        db.db.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    db.close()
    db = store.open_database(db_path)
    assert f"{db_path} was upgraded from schema 5 to {store.SCHEMA_VERSION}" in caplog.text
    indexes = {row[1] for row in db.db.execute("PRAGMA index_list(sections)")}
    assert "sections_outline" in indexes and "sections_ordinal" not in indexes
    assert {
        v: [vars(c) for c in db.iter_chunks(v)] for v in before
    } == _ranges_known_after_an_upgrade(before)


def test_a_schema_6_database_gets_the_cache_tables_and_keeps_their_rows(tmp_path, spec, caplog):
    """Schema 6 made the caches on first use: a file that used them keeps every row, one that
    never did gets them empty; either is schema 7 afterwards."""
    import logging

    from specbrowser.store import schema as store_schema

    caplog.set_level(logging.INFO, logger="specbrowser")
    used, unused = tmp_path / "used.db", tmp_path / "unused.db"
    for path in (used, unused):
        ingest([spec], path, SMALL)
    db = store.open_database(used)
    with db.db.atomic():
        db.db.execute(
            "INSERT INTO embeddings (model, content_hash, dim, vector, truncated, tokens) "
            "VALUES ('m', 'h', 1, x'00000000', 1, 600)"
        )
        db.db.execute("INSERT INTO token_counts VALUES ('m', 'h', 600)")
        db.db.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    cached = db.db.execute("SELECT count(*) FROM markdown_cache").fetchone()[0]
    assert cached > 0
    db.close()
    db = store.open_database(unused)
    with db.db.atomic():
        for table in ("markdown_cache", "embeddings", "token_counts"):
            db.db.execute(f"DROP TABLE {table}")
        db.db.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    db.close()

    with store.open_database(used) as db:
        assert f"{used} was upgraded from schema 6 to {store.SCHEMA_VERSION}" in caplog.text
        assert db.db.execute("SELECT count(*) FROM markdown_cache").fetchone()[0] == cached
        assert db.db.execute("SELECT model, truncated, tokens FROM embeddings").fetchall() == [
            ("m", 1, 600)
        ]
        assert db.tokens.counts("m") == {"h": 600}
    with store.open_database(unused) as db:
        assert {"markdown_cache", "embeddings", "token_counts"} <= set(db.db.table_names())
        assert db.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[
            0
        ] == str(store_schema.SCHEMA_VERSION)
        assert not db.tokens.recorded()
    assert [m.name for m in store_schema.MIGRATIONS] == [
        "texts_shared_by_sets",
        "threshold_ranges",
        "caches_in_schema",
        "symbol_index",
        "fts_per_set",
        "no_shared_fts",
        "index_words",
        "corpus",
        "anchors_in_rows",
    ]
    assert store_schema.MIGRATIONS[-1].version == store_schema.SCHEMA_VERSION == 13


def test_a_schema_9_database_loses_the_shared_fts_index_and_searches_as_before(tmp_path, spec):
    from specbrowser.search.query import lexical_search

    db_path = tmp_path / "nine.db"
    ingest([spec], db_path, SMALL)
    with store.open_database(db_path) as db:
        hits = [h.chunk_id for h in lexical_search(db, "scope")]
        with db.db.atomic():  # what schema 9 had beside each set's own index
            db.db.table("texts").enable_fts(
                ["title", "retrieval_header", "retrieval_body"],
                fts_version="FTS5",
                tokenize=store.FTS_TOKENIZER,
                create_triggers=True,
            )
            anchor_table_before_schema_12(db.db.conn)
            db.db.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    with store.open_database(db_path) as db:
        names = {r[0] for r in db.db.execute("SELECT name FROM sqlite_master")}
        assert not {n for n in names if n.startswith("texts_fts") or n.startswith("texts_a")}
        assert [h.chunk_id for h in lexical_search(db, "scope")] == hits and hits


def test_a_schema_4_database_is_upgraded_when_opened_and_keeps_every_set(tmp_path, spec, caplog):
    import logging

    from specbrowser.search.query import lexical_search

    caplog.set_level(logging.INFO, logger="specbrowser")

    db_path, before = _two_sets(tmp_path, spec)
    db = store.open_database(db_path)
    counts = _text_counts(db)
    hits = [h.chunk_id for h in lexical_search(db, "scope")]
    db.close()
    _downgrade_to_schema_4(db_path)
    db = store.open_database(db_path)
    assert [r.getMessage() for r in caplog.records if "upgraded" in r.getMessage()] == [
        (
            f"{db_path} was upgraded from schema 4 to {store.SCHEMA_VERSION} (every chunk set, "
            "embedding and token count kept); older specbrowser versions no longer open it"
        )
    ]
    assert db.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[
        0
    ] == str(store.SCHEMA_VERSION)
    assert {
        v: [vars(c) for c in db.iter_chunks(v)] for v in before
    } == _ranges_known_after_an_upgrade(before)
    assert _text_counts(db) == counts
    assert [h.chunk_id for h in lexical_search(db, "scope")] == hits and hits
    assert "chunk_hashes" not in db.db.table_names() and "chunks_fts" not in db.db.table_names()
    assert db.active_version() == SMALLER.version


def test_a_read_only_database_is_read_and_an_old_one_says_it_needs_writing(tmp_path, spec):
    """Schema 5 reads never write; a schema-4 file that cannot be written cannot be upgraded."""
    import os

    from specbrowser.errors import DatabaseError
    from specbrowser.search.query import lexical_search

    if not hasattr(os, "geteuid") or os.geteuid() == 0:
        pytest.skip("root (as in CI) can write anywhere; the check needs an ordinary user")
    current, old = tmp_path / "current.db", tmp_path / "old.db"
    ingest([spec], current, SMALL)
    ingest([spec], old, SMALL)
    _downgrade_to_schema_4(old)
    for path in (current, old):
        path.chmod(0o444)
    db = store.open_database(current)
    assert chunk_stats(db).chunks > 1 and lexical_search(db, "scope")
    with pytest.raises(DatabaseError, match=r"older specbrowser \(schema 4\).*needs write access"):
        store.open_database(old)


def test_listing_sections_without_html_reads_the_outline_index_only(tmp_path, spec):
    """A re-chunk lists every section; the rows hold the HTML, the index does not."""
    ingest([spec], tmp_path / "t.db", SMALL)
    db = store.open_database(tmp_path / "t.db")
    plan = db.db.execute(
        "EXPLAIN QUERY PLAN SELECT id, parent_id, ordinal, depth, kind, secnum, "
        "title, '', source_file FROM sections ORDER BY ordinal"
    ).fetchall()
    assert "COVERING INDEX sections_outline" in " ".join(row[-1] for row in plan)
    assert [s.id for s in db.sections.all(html=False)] == [s.id for s in db.sections.all()]


def test_the_store_loads_sqlite_utils_without_numpy_and_numpy_still_imports():
    import subprocess
    import sys

    probe = (
        "import sqlite3, sys, specbrowser.store\n"
        "from specbrowser.store.sqldb import SqlDatabase\n"
        "print('sqlite_utils' in sys.modules)\n"
        "SqlDatabase(sqlite3.connect(':memory:')).table('t').create({'a': int})\n"
        "print('sqlite_utils' in sys.modules)\n"
        "print('numpy' in sys.modules, sys.modules.get('numpy', 0) is None)\n"
        "import numpy\n"
        "print(numpy.zeros(2).tolist())\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:4] == ["False", "True", "False False", "[0.0, 0.0]"]


def test_reading_a_database_imports_no_sqlite_utils(tmp_path, spec):
    """Only writes need sqlite-utils (tables, rows): opening and reading a database, as the app
    does for its first screen, go through the connection alone."""
    import subprocess
    import sys

    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)
    probe = (
        "import sys\n"
        "from specbrowser.session import Session\n"
        f"with Session.open({str(db_path)!r}) as session:\n"
        "    session.document(); session.active_policy(); session.top_level_chunks()\n"
        "print('sqlite_utils' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_rechunk_imports_no_sqlite_utils(tmp_path, spec):
    """A re-chunk writes rows, no tables: its one-row upserts are SQL (``upsert_row``), so the
    command does not import sqlite-utils (35-45 ms of its start)."""
    import subprocess
    import sys

    db_path = tmp_path / "t.db"
    ingest([spec], db_path, SMALL)
    probe = (
        "import sys\n"
        "from specbrowser.chunking.policy import ChunkPolicy\n"
        "from specbrowser.session.rechunk import rechunk\n"
        "from specbrowser.store import open_database\n"
        f"db = open_database({str(db_path)!r})\n"
        "rechunk(db, ChunkPolicy(threshold=300, breakdown_tags=('p', 'li')))\n"
        "db.close()\n"
        "print('sqlite_utils' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_upsert_row_inserts_then_updates_only_the_columns_given(tmp_path):
    import sqlite3

    from specbrowser.store.rows import upsert_row
    from specbrowser.store.sqldb import SqlDatabase

    db = SqlDatabase(sqlite3.connect(tmp_path / "u.db"))
    db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, a INTEGER, b TEXT)")
    upsert_row(db, "t", {"k": "x", "a": 1, "b": "one"}, "k")
    upsert_row(db, "t", {"k": "x", "a": 2}, "k")
    upsert_row(db, "t", {"k": "y", "a": 3, "b": "three"}, "k")
    upsert_row(db, "t", {"k": "y"}, "k")  # the key alone: kept as it is
    upsert_row(db, "t", {"k": "z"}, "k")
    assert db.execute("SELECT k, a, b FROM t ORDER BY k").fetchall() == [
        ("x", 2, "one"),
        ("y", 3, "three"),
        ("z", None, None),
    ]


def test_replacing_the_spec_drops_its_vectors_and_token_counts(tmp_path, spec):
    """The spec replacing itself alone in the database: the old texts' vectors, KNN index and
    token counts go too, and the file is compacted; a set added beside the same spec keeps
    them."""
    from specbrowser.store import vectors as store_vectors

    db_path = tmp_path / "t.db"
    first = ingest([spec], db_path, SMALL)
    with store.open_database(db_path) as db:
        if db.vector_error:
            pytest.skip(db.vector_error)
        db.vectors.prepare("fake-model", 2)
        db.vectors.add(
            "fake-model",
            2,
            [
                store_vectors.NewEmbedding(
                    store_vectors.content_hash(c.retrieval_text), b"\0" * 8, False, 9
                )
                for c in first.chunks
            ],
        )
        with db.transaction():
            db.db.execute("INSERT INTO token_counts VALUES ('fake-model', 'h', 9)")
    ingest([spec], db_path, SMALLER)  # the same spec: vectors serve the new set too
    with store.open_database(db_path) as db:
        assert db.db.execute("SELECT count(*) FROM embeddings").fetchone()[0] == len(first.chunks)
    spec.write_text(  # the same spec (its title) with new bytes replaces itself
        spec.read_text(encoding="utf-8").replace("sec-scope", "sec-range"), encoding="utf-8"
    )
    assert ingest([spec], db_path, SMALL).outcome == store.INGEST_REPLACED_SPEC
    with store.open_database(db_path) as db:
        counts = [
            db.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("embeddings", "token_counts")
        ]
        assert counts == [0, 0]
        assert "chunk_vectors" not in db.db.table_names()
        assert db.vectors.model() is None
