"""``specbrowser check``: one test per check on small specs, and the command's exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.session import Session
from specbrowser.session.check import _table_rows
from specbrowser.session.ingest import ingest
from specbrowser.store import open_database
from tests.helpers import write_spec

LONG = "<p>" + "words of a paragraph " * 30 + "</p>"


def spec_db(tmp_path: Path, body: str, policy: ChunkPolicy | None = None) -> Path:
    path = tmp_path / "spec.db"
    ingest([write_spec(tmp_path, body)], path, policy or ChunkPolicy())
    return path


def findings(db: Path) -> dict[str, list[tuple[str, str]]]:
    with Session.open(db) as session:
        report = session.check()
    return {k: [(f.where, f.detail) for f in v] for k, v in report.findings.items() if v}


def test_a_clean_spec_has_no_finding(tmp_path: Path) -> None:
    db = spec_db(
        tmp_path, '<emu-clause id="a"><h1>A</h1><p>See <a href="#a">A</a>.</p></emu-clause>'
    )
    assert findings(db) == {}


def test_a_link_to_an_id_no_element_has_is_dead(tmp_path: Path) -> None:
    body = '<emu-clause id="a"><h1>A</h1><p>See <a href="#nowhere">there</a>.</p></emu-clause>'
    assert findings(spec_db(tmp_path, body)) == {
        "dead_link": [("a", "#nowhere: no element has this id")]
    }


def test_a_replacement_character_the_source_lacks_is_reported(tmp_path: Path) -> None:
    db = spec_db(tmp_path, '<emu-clause id="a"><h1>A</h1><p>plain text</p></emu-clause>')
    with open_database(db) as store, store.transaction():  # what a decoding fault would store
        store.db.execute("UPDATE texts SET text = replace(text, 'plain', 'pl\ufffdin')")
    found = findings(db)
    assert found["replacement_char"] == [("a", "1 U+FFFD in the text")]


def test_a_replacement_character_in_the_source_is_not_reported(tmp_path: Path) -> None:
    db = spec_db(tmp_path, '<emu-clause id="a"><h1>A</h1><p>the spec says \ufffd</p></emu-clause>')
    assert "replacement_char" not in findings(db)


def test_a_section_whose_chunks_do_not_reassemble_is_reported(tmp_path: Path) -> None:
    body = f'<emu-clause id="a"><h1>A</h1>{LONG}{LONG}{LONG}</emu-clause>'
    db = spec_db(tmp_path, body, ChunkPolicy(threshold=400, breakdown_tags=("p",)))
    with open_database(db) as store, store.transaction():  # a subsection that lost a word
        store.db.execute(
            "UPDATE texts SET text = replace(text, 'paragraph', '') WHERE id IN (SELECT "
            "text_id FROM chunk_rows WHERE parent_id IS NOT NULL LIMIT 1)"
        )
    (where, detail), *_ = findings(db)["not_reassembled"]
    assert where == "a" and detail.startswith("differs at character")


def test_heading_paths_that_differ_from_the_toc_are_reported(mismatch_db: Path) -> None:
    with Session.open(mismatch_db) as session:
        expected = {m.section_id for m in session.mismatches()}
    assert {where for where, _ in findings(mismatch_db)["heading_path"]} == expected != set()


def test_table_rows_with_another_cell_count_than_the_header() -> None:
    text = (
        "| a | b |\n| --- | --- |\n| 1 | 2 |\n| 1 | 2 | 3 |\n| x \\| y | z |\n\n"
        "| c |\n| --- |\n| 1 |"
    )
    assert list(_table_rows(text)) == [(3, 3, 2)]


def test_source_table_rows_that_cover_other_columns_than_their_header(tmp_path: Path) -> None:
    head = (
        "<tr><th rowspan=2>Name</th><th colspan=2>Size</th></tr><tr><th>min</th><th>max</th></tr>"
    )
    rows = (
        "<tr><td>a</td><td>1</td><td>2</td></tr>"  # 3 columns: as the header
        "<tr><td colspan=3>wide</td></tr>"  # 3 with its colspan
        "<tr><td rowspan=2>b</td><td>1</td><td>2</td></tr><tr><td>1</td><td>2</td></tr>"
        "<tr><td>short</td><td>1</td></tr>"  # 2
        "<tr><td>a</td><td>1</td><td>2</td><td>3</td></tr>"  # 4
    )
    body = f'<emu-clause id="a"><h1>A</h1><table>{head}{rows}</table></emu-clause>'
    assert findings(spec_db(tmp_path, body)) == {
        "table_header": [
            ("a", "table 1, row 7: 2 columns, header 3"),
            ("a", "table 1, row 8: 4 columns, header 3"),
        ]
    }


def test_check_exits_0_when_clean_and_1_with_findings(tmp_path: Path, mismatch_db, capsys):
    clean = spec_db(tmp_path, '<emu-clause id="a"><h1>A</h1><p>x</p></emu-clause>')
    assert main(["check", str(clean)]) == 0
    assert "ok  dead in-document links" in capsys.readouterr().out
    assert main(["check", str(mismatch_db), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["clean"] and report["counts"]["heading_path"] > 0
    assert report["findings"]["heading_path"][0]["kind"] == "heading_path"


def test_check_of_a_missing_database_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["check", str(tmp_path / "none.db")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
