"""A database holds a corpus: specs added side by side, one replacing only itself, ids told apart,
removal by name, links from one spec into another, and the upgrade of a schema-11 database.

Small hand-written specs (rendered ecmarkup pages, a Bikeshed-style page with a canonical link)
in ``tmp_path``, one rule per test.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from specbrowser import store
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.errors import NotFoundError, PolicyError, SpecInputError
from specbrowser.formats.identity import spec_identity, url_aliases
from specbrowser.model import DOCUMENT_CHUNK_ID
from specbrowser.session import Session
from specbrowser.session.ingest import ingest
from specbrowser.session.links import cross_spec_links
from tests.helpers import anchor_table_before_schema_12

POLICY = ChunkPolicy(threshold=800)

BASE = (
    '<emu-clause id="sec-intro"><h1><span class="secnum">1</span> Introduction</h1>'
    "<p>The base standard.</p></emu-clause>"
    '<emu-clause id="sec-ops"><h1><span class="secnum">2</span> Operations</h1>'
    '<p id="op-add">Add adds two numbers.</p></emu-clause>'
)
PROPOSAL = (
    '<emu-clause id="sec-intro"><h1><span class="secnum">1</span> Introduction</h1>'
    '<p>The proposal changes <a href="https://base.example/std/#op-add">Add</a> and '
    '<a href="https://base.example/std/multipage/ops.html#sec-ops">Operations</a> and '
    '<a href="https://base.example/std/#nowhere">a dead one</a>.</p></emu-clause>'
    '<emu-clause id="sec-new"><h1><span class="secnum">2</span> New</h1>'
    '<p>See <a href="#sec-intro">the introduction</a>.</p></emu-clause>'
)


def _page(tmp_path: Path, name: str, title: str, body: str, head: str = "") -> Path:
    path = tmp_path / name
    path.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>{head}</head>"
        f"<body><div id='spec-container'>{body}</div></body></html>",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def base(tmp_path: Path) -> Path:
    return _page(
        tmp_path,
        "base.html",
        "Base",
        BASE,
        '<link rel="canonical" href="https://base.example/std/">',
    )


@pytest.fixture
def proposal(tmp_path: Path) -> Path:
    return _page(tmp_path, "proposal.html", "A Proposal", PROPOSAL)


def _rows(db_path: Path, document_id: str) -> list[tuple]:
    with store.open_database(db_path) as db:
        return [
            (c.id, c.text, c.retrieval_text, c.ordinal) for c in db.iter_chunks(None, document_id)
        ]


def test_a_second_spec_is_added_and_the_first_is_untouched(tmp_path, base, proposal):
    db_path = tmp_path / "c.db"
    first = ingest([base], db_path, POLICY)
    before = _rows(db_path, first.parsed.document.id)
    second = ingest([proposal], db_path, POLICY)
    assert second.outcome == "added_spec"
    assert _rows(db_path, first.parsed.document.id) == before
    with store.open_database(db_path) as db:
        assert [s.name for s in db.corpus.all()] == ["base", "a-proposal"]
        assert db.sets.count() == 1


def test_a_note_quoting_a_specs_canonical_link_is_refused_and_replaces_nothing(
    tmp_path, base, proposal
):
    """From a new user's trial: a Markdown note that quoted a stored spec's ``<link
    rel="canonical">`` (and an ``<h2>``) was read as that spec and replaced it."""
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    with store.open_database(db_path) as db:
        everything = [(c.id, c.text, c.ordinal) for c in db.iter_chunks()]
    note = tmp_path / "notes.md"
    note.write_text(
        '# Base notes\n\nIt writes `<h2>` headings and `<link rel="canonical" '
        'href="https://base.example/std/">` in its head.\n'
    )
    with pytest.raises(SpecInputError, match="is not HTML"):
        ingest([note], db_path, POLICY)
    with store.open_database(db_path) as db:
        assert [(c.id, c.text, c.ordinal) for c in db.iter_chunks()] == everything


def test_a_corpus_is_titled_by_its_specs_in_listings(tmp_path, base, proposal, capsys):
    """From a new user's trial: `policies` and the app's header titled a corpus by its first
    spec alone ("Fetch Standard: 1 chunk set")."""
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    with Session.open(db_path) as session:
        assert session.title() == "Base"
    ingest([proposal], db_path, POLICY)
    with Session.open(db_path) as session:
        assert session.title() == "a corpus of 2 specs (base, a-proposal)"
    capsys.readouterr()
    assert main(["policies", str(db_path)]) == 0
    assert "a corpus of 2 specs (base, a-proposal): 1 chunk set" in capsys.readouterr().out


def test_a_section_number_names_the_first_specs_and_a_spec_prefix_names_anothers(
    tmp_path, base, proposal, capsys
):
    """From a new user's trial: ``show corpus.db 2.2`` silently gave the first spec's 2.2, and
    no form named another spec's (``webauthn:2.2`` was refused)."""
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    with Session.open(db_path) as session:
        first = session.locate("2")
        assert (first.chunk_id, first.resolved_as, first.also_in) == (
            "sec-ops",
            "section",
            ("a-proposal",),
        )
        assert session.locate("a-proposal:2").chunk_id == "sec-new"
        assert session.locate("base:2").chunk_id == "sec-ops"
        assert session.locate("a-proposal:1").chunk_id == "a-proposal:sec-intro"
        assert session.locate("sec-new").also_in == ()  # an id only one spec has
    capsys.readouterr()
    assert main(["show", str(db_path), "2"]) == 0
    said = " ".join(capsys.readouterr().err.split())
    assert "2 read as section: sec-ops (the first spec's; also in a-proposal: name one as " in said
    assert "NAME:2)" in said


def test_ids_another_spec_has_are_prefixed_and_both_forms_resolve(tmp_path, base, proposal):
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    with store.open_database(db_path) as db:
        ids = [c.id for c in db.iter_chunks()]
        version = db.active_version()
        assert "a-proposal:sec-intro" in ids and "sec-new" in ids and "sec-intro" in ids
        assert f"a-proposal:{DOCUMENT_CHUNK_ID}" in ids
        assert db.corpus.resolve_id("base:sec-intro", version) == "sec-intro"
        assert db.corpus.resolve_id("a-proposal:sec-new", version) == "sec-new"
        assert db.corpus.resolve_id("a-proposal:sec-intro", version) == "a-proposal:sec-intro"
        assert db.corpus.resolve_id("base:sec-new", version) is None
        marker = db.chunk("a-proposal:sec-intro")
        assert marker.section_id == "a-proposal:sec-intro"


def test_an_unchanged_spec_ingested_again_changes_nothing_of_the_others(tmp_path, base, proposal):
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    with store.open_database(db_path) as db:
        everything = [(c.id, c.text, c.ordinal) for c in db.iter_chunks()]
    assert ingest([base], db_path, POLICY).outcome == "unchanged"
    with store.open_database(db_path) as db:
        assert [(c.id, c.text, c.ordinal) for c in db.iter_chunks()] == everything


def test_a_changed_spec_replaces_only_itself(tmp_path, base, proposal):
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    added = ingest([proposal], db_path, POLICY)
    kept = _rows(db_path, added.parsed.document.id)
    base.write_text(base.read_text().replace("Add adds", "Add sums"), encoding="utf-8")
    result = ingest([base], db_path, POLICY)
    assert result.outcome == "replaced_spec"
    assert _rows(db_path, added.parsed.document.id) == kept
    with store.open_database(db_path) as db:
        assert len(db.corpus.all()) == 2
        assert "Add sums" in db.chunk("sec-ops").text


def test_a_new_policy_for_one_spec_of_a_corpus_is_refused(tmp_path, base, proposal):
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    with pytest.raises(PolicyError, match="re-chunk the corpus"):
        ingest([proposal], db_path, ChunkPolicy(threshold=500))


def test_remove_takes_one_spec_by_name_and_leaves_the_others(tmp_path, base, proposal, capsys):
    db_path = tmp_path / "c.db"
    first = ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    before = _rows(db_path, first.parsed.document.id)
    assert main(["remove", str(db_path), "nope"]) == 2
    assert "no spec named 'nope'" in capsys.readouterr().err
    assert main(["remove", str(db_path), "a-proposal"]) == 0
    assert "removed a-proposal" in capsys.readouterr().out
    assert _rows(db_path, first.parsed.document.id) == before
    with store.open_database(db_path) as db:
        assert [s.name for s in db.corpus.all()] == ["base"]
        assert not db.db.execute("SELECT 1 FROM sections WHERE id = 'sec-new'").fetchone()


def test_specs_lists_every_spec_with_its_counts_and_links(tmp_path, base, proposal, capsys):
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    capsys.readouterr()
    assert main(["specs", str(db_path), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(s["name"], s["sections"], s["chunks"]) for s in listed["specs"]] == [
        ("base", 2, 3),
        ("a-proposal", 2, 3),
    ]
    assert listed["specs"][0]["canonical_url"] == "https://base.example/std/"
    assert [
        (x["from"], x["to"], x["links"], x["resolved"]) for x in listed["cross_spec_links"]
    ] == [("a-proposal", "base", 3, 2)]


def test_a_link_into_another_spec_resolves_to_the_chunk_holding_its_target(
    tmp_path, base, proposal
):
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    with Session.open(db_path) as session:
        assert session.chunk_id_for("https://base.example/std/#op-add") == "sec-ops"
        assert session.chunk_id_for("https://base.example/std/multipage/x.html#sec-ops") == (
            "sec-ops"
        )
        assert session.chunk_id_for("base:#op-add") == "sec-ops"
        with pytest.raises(NotFoundError):
            session.chunk_id_for("https://base.example/std/#nowhere")
        links = cross_spec_links(session.store, session.active_version())
        assert links[0].unresolved == ["nowhere"]


def test_an_in_document_anchor_resolves_in_its_own_spec(tmp_path, base, proposal):
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    added = ingest([proposal], db_path, POLICY)
    with store.open_database(db_path) as db:
        held = db.symbols.anchor_chunks(
            db.active_version(), ["sec-intro"], added.parsed.document.id
        )
        assert held == {"sec-intro": "a-proposal:sec-intro"}


def test_search_covers_the_corpus_or_one_spec(tmp_path, base, proposal, capsys):
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    capsys.readouterr()
    assert main(["search", str(db_path), "introduction", "--json"]) == 0
    everywhere = {h["chunk_id"] for h in json.loads(capsys.readouterr().out)["hits"]}
    assert {"sec-intro", "a-proposal:sec-intro"} <= everywhere
    assert main(["search", str(db_path), "introduction", "--json", "--spec", "base"]) == 0
    one = {h["chunk_id"] for h in json.loads(capsys.readouterr().out)["hits"]}
    assert "sec-intro" in one and "a-proposal:sec-intro" not in one
    assert main(["search", str(db_path), "introduction", "--spec", "nope"]) == 2


def test_a_rechunk_covers_every_spec(tmp_path, base, proposal):
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    assert main(["rechunk", str(db_path), "--threshold", "500"]) == 0
    with store.open_database(db_path) as db:
        counts = {s.spec.name: s.chunks for s in db.corpus.listing(db.active_version(), None)}
        assert counts == {"base": 3, "a-proposal": 3}


def test_identity_from_a_canonical_link_and_ecmarkup_metadata():
    assert spec_identity(
        b'<head><link href="https://x.example/a/" rel="canonical">'
    ).canonical_url == ("https://x.example/a/")
    found = spec_identity(
        b'<pre class="metadata">\n  shortname: ECMA-262\n  location: https://tc39.es/ecma262/\n</pre>'
    )
    assert (found.shortname, found.canonical_url) == ("ECMA-262", "https://tc39.es/ecma262/")
    rendered = spec_identity(b'<h1 class="version">Draft ECMA-262 / November 29, 2026</h1>')
    assert rendered.canonical_url == "https://tc39.es/ecma262/"


def test_identity_of_an_rfc_and_of_an_internet_draft():
    rfc = spec_identity(b'<head><meta content="9110" name="rfc.number"></head>')
    assert (rfc.shortname, rfc.canonical_url) == (
        "rfc9110",
        "https://www.rfc-editor.org/rfc/rfc9110",
    )
    assert "https://httpwg.org/specs/rfc9110.html" in url_aliases(rfc.canonical_url)
    draft = spec_identity(b'<head><meta content="draft-ietf-x-semantics-19" name="ietf.draft">')
    assert draft.shortname == "draft-ietf-x-semantics"
    assert draft.canonical_url == "https://datatracker.ietf.org/doc/html/draft-ietf-x-semantics-19"
    aliases = url_aliases(draft.canonical_url)
    assert "https://www.ietf.org/archive/id/draft-ietf-x-semantics-19.html" in aliases
    assert not any("rfc" in alias for alias in aliases)


def _downgrade_to_schema_11(db_path: Path) -> None:
    """What a schema-11 database held: no corpus columns, anchors in a table of their own keyed
    without a spec."""
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("DROP VIEW chunks")
        conn.execute("DROP INDEX documents_name")
        conn.execute("DROP INDEX chunk_rows_document")
        for column in ("name", "shortname", "canonical_url", "position"):
            conn.execute(f"ALTER TABLE documents DROP COLUMN {column}")
        for table in ("chunk_rows", "symbols", "toc_nodes", "mismatches"):
            conn.execute(f"ALTER TABLE {table} DROP COLUMN document_id")
        anchor_table_before_schema_12(conn)
        view = store.schema.CHUNKS_VIEW.replace(", r.document_id", "")
        conn.execute(f"CREATE VIEW chunks AS {view}")
        conn.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
    conn.close()


def test_a_schema_11_database_is_upgraded_to_a_corpus_of_one(tmp_path, base, proposal):
    db_path = tmp_path / "eleven.db"
    ingest([base], db_path, POLICY)
    with store.open_database(db_path) as db:
        before = [(c.id, c.text, c.retrieval_text, c.ordinal) for c in db.iter_chunks()]
        anchors = db.symbols.anchor_map(db.active_version())
    assert any(chunk != section for chunk, section in anchors.items())  # some in subsections
    _downgrade_to_schema_11(db_path)
    with store.open_database(db_path) as db:
        assert db.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[
            0
        ] == str(store.SCHEMA_VERSION)
        (spec,) = db.corpus.all()
        assert (spec.name, spec.position) == ("base", 0)
        assert [(c.id, c.text, c.retrieval_text, c.ordinal) for c in db.iter_chunks()] == before
        assert _rows(db_path, spec.id) == before
        assert db.symbols.anchor_map(db.active_version()) == anchors
        assert db.symbols.has_anchor_map(db.active_version())
        assert "chunk_anchors" not in db.db.table_names()
    assert ingest([base], db_path, POLICY).outcome == "unchanged"  # the same spec, by title
    assert ingest([proposal], db_path, POLICY).outcome == "added_spec"


def test_ingest_each_gives_the_database_that_separate_ingests_give(
    tmp_path, base, proposal, capsys
):
    main(["ingest", str(base), "--db", str(tmp_path / "one.db"), "--threshold", "800"])
    main(["ingest", str(proposal), "--db", str(tmp_path / "one.db"), "--threshold", "800"])
    capsys.readouterr()
    each = tmp_path / "each.db"
    code = main(
        ["ingest", str(base), str(proposal), "--each", "--db", str(each), "--threshold", "800"]
    )
    printed = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert printed.count(f"→ {each}") == 2 and "a spec added to the corpus" in printed
    assert f"2 specs ingested into {each}" in printed
    for spec in ("base", "a-proposal"):
        with store.open_database(each) as db:
            spec_id = next(s.id for s in db.corpus.all() if s.name == spec)
        with store.open_database(tmp_path / "one.db") as db:
            one_id = next(s.id for s in db.corpus.all() if s.name == spec)
        assert _rows(each, spec_id) == _rows(tmp_path / "one.db", one_id)


def test_each_summary_names_the_chunk_set_its_spec_is_stored_in(tmp_path, proposal, capsys):
    """From a new user's trial: in a corpus of two formats, the second spec's summary printed its
    own format's policy version, which no set of the database has."""
    plain = _page(tmp_path, "plain.html", "Plain", "<h2 id='p'>P</h2><p>Plain words.</p>")
    db_path = tmp_path / "mixed.db"
    assert main(["ingest", str(plain), str(proposal), "--each", "--db", str(db_path)]) == 0
    printed = " ".join(capsys.readouterr().out.replace("│", " ").split())
    with store.open_database(db_path) as db:
        (stored,) = [info.version for info in db.sets.all()]
    short = stored[:12]
    assert printed.count(short) == 2
    assert f"(version {short})" in printed and f"(in the corpus's chunk set {short})" in printed


def test_ingest_each_checks_every_spec_before_writing_anything(tmp_path, base, capsys):
    db_path = tmp_path / "c.db"
    code = main(
        ["ingest", str(base), str(tmp_path / "missing.html"), "--each", "--db", str(db_path)]
    )
    err = capsys.readouterr().err
    assert code == 2 and "missing.html does not exist" in err and len(err.strip().splitlines()) == 1
    assert not db_path.exists()


def test_ingest_each_keeps_the_specs_stored_before_one_that_fails(tmp_path, base, proposal, capsys):
    no_sections = _page(tmp_path, "empty.html", "Empty", "")
    db_path = tmp_path / "c.db"
    code = main(
        ["ingest", str(base), str(no_sections), str(proposal), "--each", "--db", str(db_path)]
    )
    captured = capsys.readouterr()
    assert code == 2 and "no sections in" in captured.err
    assert f"Base → {db_path}" in " ".join(captured.out.split())  # the stored spec's summary
    with store.open_database(db_path) as db:
        assert [s.name for s in db.corpus.all()] == ["base"]


def test_ingest_each_refuses_one_toc_for_several_specs(tmp_path, base, proposal, capsys):
    toc = tmp_path / "toc.json"
    toc.write_text("[]", encoding="utf-8")
    code = main(
        [
            "ingest",
            str(base),
            str(proposal),
            "--each",
            "--toc",
            str(toc),
            "--db",
            str(tmp_path / "c.db"),
        ]
    )
    assert code == 2 and "--toc names one spec's TOC" in capsys.readouterr().err


def test_the_next_spec_is_parsed_only_once_no_breakdown_will_fork(
    tmp_path, base, proposal, monkeypatch
):
    """The parse thread of ``ingest_each`` starts when ``breakdowns_done`` is called: after every
    breakdown of the spec, the other stored sets' included, and before any set is written."""
    from specbrowser.session import ingest as ingest_module

    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    assert main(["rechunk", str(db_path), "--threshold", "300"]) == 0  # a second stored set
    events: list[str] = []
    real_chunk_spec = ingest_module.chunk_spec

    def chunk_spec(*args, **kwargs):
        events.append("breakdown")
        return real_chunk_spec(*args, **kwargs)

    monkeypatch.setattr(ingest_module, "chunk_spec", chunk_spec)
    result = ingest([proposal], db_path, POLICY, breakdowns_done=lambda: events.append("done"))
    assert result.outcome == "added_spec"
    assert events == ["breakdown", "breakdown", "done"]  # both stored sets broken down first


def test_an_anchor_several_specs_hold_is_the_first_specs_and_says_so(
    tmp_path, base, proposal, capsys
):
    db_path = tmp_path / "c.db"
    ingest([base], db_path, POLICY)
    ingest([proposal], db_path, POLICY)
    capsys.readouterr()
    assert main(["show", str(db_path), "#sec-intro"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "read as anchor: sec-intro (the first spec's; also in a-proposal" in err
    assert "name one as NAME:#sec-intro" in err
    assert main(["show", str(db_path), "a-proposal:#sec-intro"]) == 0
    out = capsys.readouterr()
    assert "a-proposal:sec-intro" in out.out and "also in" not in out.err


def test_an_ingest_of_stored_bytes_under_a_stored_policy_writes_nothing(tmp_path, base, capsys):
    db_path = tmp_path / "c.db"
    widget = Path(__file__).parents[2] / "sample_specs" / "widget-protocol.html"
    assert main(["ingest", str(base), "--db", str(db_path)]) == 0
    assert main(["ingest", str(widget), "--db", str(db_path)]) == 0  # another format's form
    capsys.readouterr()
    before = db_path.read_bytes()
    assert main(["ingest", str(base), str(widget), "--each", "--db", str(db_path)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert printed.count("unchanged (these bytes are stored under this policy") == 2
    assert "2 specs into" in printed and ": 0 written, 2 unchanged" in printed
    assert db_path.read_bytes() == before


def test_new_bytes_another_policy_or_a_toc_file_ingest_again(tmp_path, base, capsys):
    db_path = tmp_path / "c.db"
    assert main(["ingest", str(base), "--db", str(db_path)]) == 0
    capsys.readouterr()
    assert main(["ingest", str(base), "--db", str(db_path), "--threshold", "900"]) == 0
    assert "added beside the other policies' sets" in " ".join(capsys.readouterr().out.split())
    toc = tmp_path / "toc.json"
    toc.write_text("[]", encoding="utf-8")
    assert main(["ingest", str(base), "--db", str(db_path), "--toc", str(toc)]) == 0
    assert "unchanged" not in capsys.readouterr().out
    base.write_text(base.read_text().replace("Add adds", "Add sums"), encoding="utf-8")
    assert main(["ingest", str(base), "--db", str(db_path)]) == 0
    assert "unchanged" not in capsys.readouterr().out


def test_a_tc39_proposal_is_known_by_its_pages_url_and_links_into_it_resolve(tmp_path):
    """A proposal whose shortname links to its repository in the TC39 organisation (rendered
    heading or source metadata) is published at tc39.es, where other proposals link to it."""
    rendered = spec_identity(
        b'<h1 class="shortname"><span class="status">Proposal</span> <a href="<no location>">'
        b'</a><a href="https://github.com/tc39/proposal-a">proposal-a</a></h1>'
    )
    source = spec_identity(
        b'<pre class="metadata">\ntitle: A\nshortname: &lt;a href="https://github.com/tc39/'
        b'proposal-a"&gt;proposal-a&lt;/a&gt;\n</pre>'
    )
    located = spec_identity(
        b'<pre class="metadata">\n  location: https://github.com/tc39/proposal-a\n</pre>'
    )
    assert rendered == source
    assert (rendered.shortname, rendered.canonical_url) == (
        "proposal-a",
        "https://tc39.es/proposal-a/",
    )
    assert located.canonical_url == "https://tc39.es/proposal-a/"
    assert "https://tc39.github.io/proposal-a/" in url_aliases("https://tc39.es/proposal-a/")
    elsewhere = spec_identity(b'<pre class="metadata">\nlocation: https://github.com/me/x\n</pre>')
    assert elsewhere.canonical_url == "https://github.com/me/x"  # only the TC39 organisation's
    first = _page(
        tmp_path,
        "a.html",
        "Proposal A",
        '<h1 class="shortname"><a href="https://github.com/tc39/proposal-a">proposal-a</a></h1>'
        '<emu-clause id="sec-a"><h1><span class="secnum">1</span> A thing</h1>'
        '<p id="a-step">A does it.</p></emu-clause>',
    )
    second = _page(
        tmp_path,
        "b.html",
        "Proposal B",
        '<emu-clause id="sec-b"><h1><span class="secnum">1</span> B</h1><p>B uses '
        '<a href="https://tc39.es/proposal-a/#a-step">A</a> and '
        '<a href="https://tc39.github.io/proposal-a/#sec-a">A again</a>.</p></emu-clause>',
    )
    db_path = tmp_path / "c.db"
    ingest([first], db_path, POLICY)
    ingest([second], db_path, POLICY)
    with Session.open(db_path) as session:
        links = cross_spec_links(session.store, session.active_version())
        assert [(x.source, x.target, x.links, x.resolved) for x in links] == [
            ("proposal-b", "proposal-a", 2, 2)
        ]
