"""Export of a corpus (the tests' two-spec database, ``corpus_db``): every record names its spec
and its spec's title, an ``#id`` link resolves in its own spec (the anchor map scoped per spec),
and a URL into the other spec resolves to the chunk holding its target."""

from __future__ import annotations

import json

import pytest

from specbrowser.session import Session


def _records(session: Session, tmp_path) -> dict[str, dict]:
    out = tmp_path / "corpus.jsonl"
    session.export(out)
    return {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


def test_records_carry_their_spec_and_its_title(corpus_db, tmp_path) -> None:
    with Session.open(corpus_db) as session:
        records = _records(session, tmp_path)
        chunks = session.chunk_count()
    assert len(records) == chunks
    assert records["intro"]["metadata"]["spec"] == "widget-protocol"
    timers = records["widget-timers:intro"]["metadata"]
    assert timers["spec"] == "widget-timers" and timers["document_title"] == "Widget Timers"
    assert timers["source"].endswith("widget-timers.html#widget-timers:intro")
    document = records["widget-timers:specbrowser:document"]["metadata"]
    assert document["source"].endswith("widget-timers.html")


def test_an_anchor_link_leads_into_its_own_spec_a_url_into_the_other(corpus_db, tmp_path):
    with Session.open(corpus_db) as session:
        records = _records(session, tmp_path)
        session_chunk = session.locate("widget-protocol:#session").chunk_id
    links = {
        link["href"]: link["chunk_id"] for link in records["sec-set-timer"]["metadata"]["links"]
    }
    assert links["#intro"] == "widget-timers:intro"
    intro = {
        link["href"]: link["chunk_id"]
        for link in records["widget-timers:intro"]["metadata"]["links"]
    }
    assert intro["https://example.org/widget-protocol/#session"] == session_chunk
    assert intro["https://timers.example.net/notes#repeat"] is None
    assert intro["#sec-timers"] == "sec-timers"


def test_a_single_spec_export_names_its_one_spec(toylang_db, tmp_path) -> None:
    with Session.open(toylang_db) as session:
        records = _records(session, tmp_path)
        name = session.spec_rows()[0].name
    assert {r["metadata"]["spec"] for r in records.values()} == {name}


def test_a_parquet_file_names_every_spec_of_the_corpus(corpus_db, tmp_path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "corpus.parquet"
    with Session.open(corpus_db) as session:
        session.export(out, format="parquet")
    metadata = pq.read_schema(out).metadata
    assert metadata[b"specbrowser.specs"] == b"widget-protocol,widget-timers"
