"""The command line: each command, and each bad input ending in one line and exit status 2."""

from __future__ import annotations

import gc
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import specbrowser
from specbrowser import store, types
from specbrowser.chunking.policy import CONVERTER_VERSION, ChunkPolicy
from specbrowser.cli import main
from specbrowser.model import DOCUMENT_CHUNK_ID
from specbrowser.store import connection, open_database
from tests.helpers import SAMPLE, set_fts_in_sync, write_spec

BODY = (
    '<emu-clause id="sec-a"><h1><span class="secnum">1</span> Alpha</h1><p>alpha text</p>'
    + "".join(f"<p>para {i} " + "words here " * 30 + "</p>" for i in range(4))
    + '<emu-clause id="sec-b"><h1><span class="secnum">1.1</span> Beta [bold]</h1><p>beta</p>'
    "</emu-clause></emu-clause>"
)


@pytest.fixture
def spec(tmp_path):
    return write_spec(tmp_path, BODY)


@pytest.fixture
def db(tmp_path, spec):
    path = tmp_path / "spec.db"
    assert main(["ingest", str(spec), "--db", str(path), "--threshold", "400"]) == 0
    return path


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_ingest_prints_summary_and_writes_db(tmp_path, spec, capsys):
    path = tmp_path / "out.db"
    assert main(["ingest", str(spec), "--db", str(path), "--threshold", "400"]) == 0
    output = capsys.readouterr().out
    assert "sections" in output and "over threshold" in output and "time" in output
    database = open_database(path)
    assert database.db["sections"].count == 2
    # document + sec-a + 4 paragraph subsections (the guarded strategy packs "alpha text" with
    # the next paragraph) + sec-b
    assert database.db["chunks"].count == 7


def test_reingest_replaces(tmp_path, spec, db):
    """The same spec (by title) with new bytes replaces itself; its stale sets go."""
    spec.write_text(spec.read_text().replace("sec-b", "sec-c"))
    assert main(["ingest", str(spec), "--db", str(db)]) == 0
    database = open_database(db)
    ids = [r[0] for r in database.db.execute("SELECT id FROM sections ORDER BY ordinal")]
    assert ids == ["sec-a", "sec-c"]
    assert database.db["policies"].count == 1


def test_ingest_with_a_new_policy_adds_a_chunk_set(spec, db, capsys):
    capsys.readouterr()
    assert main(["ingest", str(spec), "--db", str(db), "--threshold", "300"]) == 0
    output = capsys.readouterr().out
    version = ChunkPolicy(threshold=300).version
    assert "added beside the other policies' sets; 2 in the database" in " ".join(
        output.replace("│", " ").split()
    )
    database = open_database(db)
    assert database.db["policies"].count == 2
    assert database.active_version() == version


def two_sets(spec, db) -> tuple[str, str]:
    """Add a 300-character set beside the fixture's 400 one; returns (400 version, 300 version)."""
    assert main(["ingest", str(spec), "--db", str(db), "--threshold", "300"]) == 0
    return ChunkPolicy(threshold=400).version, ChunkPolicy(threshold=300).version


def test_policies_lists_every_chunk_set(spec, db, capsys):
    first, second = two_sets(spec, db)
    capsys.readouterr()
    assert main(["policies", str(db)]) == 0
    output = capsys.readouterr().out
    assert "2 chunk sets" in output
    rows = {
        line.split()[1] if line.split()[0] == "●" else line.split()[0]: line
        for line in output.splitlines()
        if first in line or second in line
    }
    assert rows[second].split()[0] == "●" and rows[first].split()[0] != "●"
    assert "400" in rows[first] and "300" in rows[second]
    assert "stale" not in output  # no stale set: not even the legend


def _texts_and_sets(path) -> tuple[set[str], set[str]]:
    database = open_database(path)
    try:
        assert all(indexed == used for indexed, used in set_fts_in_sync(database).values())
        texts = {r[0] for r in database.db.execute("SELECT text_hash FROM texts")}
        return texts, {r[0] for r in database.db.execute("SELECT version FROM policies")}
    finally:
        database.close()


def test_policies_delete_drops_a_set_and_the_texts_only_it_used(spec, db, capsys):
    assert main(["ingest", str(spec), "--db", str(db), "--max-depth", "0"]) == 0  # whole sections
    whole = ChunkPolicy(max_depth=0).version
    first, second = two_sets(spec, db)  # the 300 set is active
    database = open_database(db)
    kept = {
        r[0]
        for r in database.db.execute(
            "SELECT t.text_hash FROM texts t JOIN chunk_rows r ON r.text_id = t.id "
            "WHERE r.policy_version != ?",
            [whole],
        )
    }
    whole_chunks = database.db.execute(
        "SELECT count(*) FROM chunk_rows WHERE policy_version = ?", [whole]
    ).fetchone()[0]
    database.close()
    texts, _ = _texts_and_sets(db)
    assert kept < texts  # the whole-section set has texts of its own
    capsys.readouterr()
    assert main(["policies", str(db), "--delete", whole[:5]]) == 0
    output = capsys.readouterr().out
    assert (
        f"deleted chunk set {whole}: {whole_chunks:,} chunks, {len(texts - kept):,} texts "
        "no other set used"
    ) in output and "database:" in output
    assert _texts_and_sets(db) == (kept, {first, second})  # and the FTS5 index is consistent
    assert main(["search", str(db), "alpha"]) == 0  # lexical search still works


def test_policies_delete_never_touches_the_active_set_or_deletes_half(spec, db, capsys):
    first, second = two_sets(spec, db)  # the 300 set is active
    before = _texts_and_sets(db)
    for options, says in (
        (["--delete", second], f"cannot delete {second}: it is the active chunk set"),
        (["--delete", first, "--delete", second], "it is the active chunk set"),
        (["--delete", first, "--delete", "ffffff"], "no chunk set with policy version 'ffffff'"),
        (["--activate", first, "--delete", first], "it is the set --activate makes active"),
        (["--activate", first, "--delete", "ffffff"], "no chunk set with policy version"),
    ):
        capsys.readouterr()
        assert main(["policies", str(db), *options]) == 2
        assert says in one_error_line(capsys)
        assert _texts_and_sets(db) == before
        assert open_database(db).active_version() == second  # not activated either
    capsys.readouterr()
    assert main(["policies", str(db), "--activate", first, "--delete", second, "--json"]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)  # stdout stays one JSON object
    assert [p["version"] for p in payload["policies"]] == [first]
    assert [d["version"] for d in payload["deleted"]] == [second]
    assert f"deleted chunk set {second}" in captured.err
    assert _texts_and_sets(db)[1] == {first}


def test_policies_json_and_stale(spec, db, capsys):
    first, second = two_sets(spec, db)
    database = open_database(db)
    settings = json.loads(
        database.db.execute("SELECT settings FROM policies WHERE version = ?", [first]).fetchone()[
            0
        ]
    )
    settings["converter_version"] = CONVERTER_VERSION + 1
    with database.db.atomic():
        database.db.execute(
            "UPDATE policies SET settings = ? WHERE version = ?", [json.dumps(settings), first]
        )
    database.close()
    capsys.readouterr()
    assert main(["policies", str(db), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["converter_version"] == CONVERTER_VERSION
    sets = {p["version"]: p for p in payload["policies"]}
    assert set(sets) == {first, second}
    assert (sets[first]["stale"], sets[first]["active"]) == (True, False)
    assert (sets[second]["stale"], sets[second]["active"]) == (False, True)
    assert sets[first]["settings"]["threshold_chars"] == 400
    assert (
        sets[second]["chunks"]
        == open_database(db)
        .db.execute("SELECT count(*) FROM chunks WHERE policy_version = ?", [second])
        .fetchone()[0]
    )
    assert set(sets[second]) >= {"created_at", "over_threshold", "converter_version"}
    assert main(["policies", str(db)]) == 0
    assert "stale" in capsys.readouterr().out


def test_policies_activate(spec, db, capsys):
    first, _second = two_sets(spec, db)
    capsys.readouterr()
    assert main(["policies", str(db), "--activate", first[:6]]) == 0
    assert f"active chunk set: {first}" in capsys.readouterr().out
    assert open_database(db).active_version() == first
    assert main(["stats", str(db), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["policy"]["version"] == first and payload["policy"]["threshold_chars"] == 400


def test_show_document_chunk_and_retrieval_text(db, capsys):
    assert main(["show", str(db), DOCUMENT_CHUNK_ID]) == 0
    output = capsys.readouterr().out
    assert "document" in output and "- 1 Alpha" in output
    assert main(["show", str(db), "sec-b", "--retrieval-text"]) == 0
    output = capsys.readouterr().out
    assert "Document: Test spec\nSection: 1 Alpha > 1.1 Beta [bold]\nContent:\n" in output


def test_spec_text_with_emoji_codes_is_printed_as_written(tmp_path, capsys):
    """Rich replaces ``:name:`` with an emoji in any string it prints, markup off or not:
    ``a:b:c`` came out as ``a🅱c`` in a table cell and a chunk's text."""
    spec = write_spec(
        tmp_path,
        '<emu-clause id="sec-e"><h1><span class="secnum">1</span> Scheme a:b:c :smile:</h1>'
        "<p>the pair x:id:y and :warning:</p></emu-clause>",
    )
    db = tmp_path / "e.db"
    assert main(["ingest", str(spec), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["show", str(db), "sec-e"]) == 0
    shown = capsys.readouterr().out
    assert "Scheme a:b:c :smile:" in shown and "x:id:y and :warning:" in shown
    assert main(["search", str(db), "scheme", "--mode", "lexical"]) == 0  # a table
    assert "a:b:c :smile:" in capsys.readouterr().out


def test_show_and_recursive(db, capsys):
    assert main(["show", str(db), "sec-b"]) == 0
    output = capsys.readouterr().out
    assert "Beta [bold]" in output  # literal, not Rich markup
    assert main(["show", str(db), "sec-a", "--recursive"]) == 0
    output = capsys.readouterr().out
    order = [output.index(x) for x in ("sec-a ·", "sec-a-p-1", "sec-a-p-5", "sec-b ·")]
    assert order == sorted(order)


def test_subsections_lists_tags_from_stored_data(db, capsys):
    assert main(["subsections", str(db), "sec-a"]) == 0
    output = capsys.readouterr().out
    assert output.count("sec-a-p-") == 4 and "emu-clause" in output and "sec-b" in output
    assert "sec-a-p-1-2" in output  # a packed run names its first and last paragraph


def test_stats_json(db, capsys):
    assert main(["stats", str(db), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["sections"] == 2 and payload["chunks"] == 7
    assert payload["by_layer"] == {"subsection": 4, "section": 2, "document": 1}
    assert payload["unresolved_markers"] == 0
    assert payload["policy"]["threshold_chars"] == 400


def test_strategy_and_minimum_options_make_the_policy(spec, tmp_path, capsys):
    path = tmp_path / "s.db"
    argv = ["ingest", str(spec), "--db", str(path), "--threshold", "400", "--strategy", "seed"]
    assert main(argv) == 0
    assert main(["rechunk", str(path), "--threshold", "400", "--min-chars", "50"]) == 0
    capsys.readouterr()
    assert main(["subsections", str(path), "sec-a"]) == 0
    assert "sec-a-p-1-2" in capsys.readouterr().out  # guarded: "alpha text" packed with para 0
    assert main(["policies", str(path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    settings = {
        (p["settings"]["strategy"], p["settings"]["min_chars"]) for p in payload["policies"]
    }
    assert settings == {("seed", 200), ("guarded", 50)}
    assert main(["policies", str(path)]) == 0
    table = " ".join(capsys.readouterr().out.split())  # cells wrap at 80 columns
    assert "guarded, min 50" in table and "seed" in table


@pytest.mark.parametrize(
    "option, message",
    [(["--strategy", "greedy"], "invalid choice"), (["--min-chars", "-1"], "at least 0")],
)
def test_bad_strategy_or_minimum_is_a_usage_error(spec, tmp_path, capsys, option, message):
    with pytest.raises(SystemExit) as exit_:
        main(["ingest", str(spec), "--db", str(tmp_path / "x.db"), *option])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "x.db").exists()


def test_stats_table(db, capsys):
    assert main(["stats", str(db)]) == 0
    assert "unresolved markers" in capsys.readouterr().out


def test_stats_shows_the_quality_figures(db, capsys):
    assert main(["stats", str(db)]) == 0
    output = capsys.readouterr().out
    for row in ("without markers", "tiny chunks", "marker share", "mostly markers"):
        assert row in output
    assert main(["stats", str(db), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["tiny_chunks"] >= 0 and payload["sizes_without_markers"]["max"] > 0
    share = payload["breakdown_marker_share"]
    assert 0 < share == round(payload["breakdown_marker_chars"] / payload["total_chars"], 4)


def test_show_gives_the_size_without_markers(db, capsys):
    assert main(["show", str(db), "sec-a"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "chars (" in header and "without markers)" in header
    from specbrowser.session import Session

    with Session.open(db) as session:
        leaf = next(c for c in session.subsections(session.chunk("sec-a")) if not c.subsections)
    assert main(["show", str(db), leaf.id]) == 0  # no marker: one size
    assert "without markers" not in capsys.readouterr().out


@pytest.mark.skipif(not SAMPLE.exists(), reason="sample spec missing")
def test_demo_ingests_the_sample(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["demo", "--no-open"]) == 0
    assert "Toylang" in capsys.readouterr().out
    assert list((tmp_path / "cache").rglob("*.db"))


@pytest.mark.parametrize(
    "args, message",
    [
        (["ingest", "{tmp}/missing.html", "--db", "{tmp}/x.db"], "does not exist"),
        (["ingest", "{tmp}/empty_dir", "--db", "{tmp}/x.db"], "without .html"),
        (["ingest", "{tmp}/notes.html", "--db", "{tmp}/x.db"], "is not HTML"),
        (["ingest", "{spec}", "--db", "{tmp}"], "is a folder"),
        (["ingest", "{spec}", "--db", "{tmp}/no/such/dir/x.db"], "does not exist"),
        (["ingest", "{spec}", "--db", "{tmp}/x.db", "--tags", ","], "names no breakdown tag"),
        (["ingest", "{spec}", "--db", "{tmp}/x.db", "--tags", "p,p"], "repeat"),
        (["stats", "{tmp}/notes.html"], "not a SQLite database"),
        (["stats", "{tmp}/other.db"], "not a specbrowser database"),
        (["stats", "{tmp}/missing.db"], "does not exist"),
        (["show", "{db}", "sec-nope"], "no chunk or section"),
        (["subsections", "{db}", "sec-nope"], "no chunk or section"),
        (["policies", "{db}", "--activate", "nope"], "no chunk set with policy version 'nope'"),
        (["policies", "{tmp}/missing.db"], "does not exist"),
    ],
)
def test_bad_input_one_line_exit_2(tmp_path, spec, db, capsys, args, message):
    (tmp_path / "empty_dir").mkdir()
    (tmp_path / "notes.html").write_text("plain words only\n")
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE t (x)")
    other.close()
    capsys.readouterr()
    argv = [a.format(tmp=tmp_path, spec=spec, db=db) for a in args]
    assert main(argv) == 2
    assert message in one_error_line(capsys)
    assert not (tmp_path / "x.db").exists(), "a failed ingest leaves no database behind"


def test_unwritable_database(tmp_path, spec, capsys):
    if not hasattr(os, "geteuid") or os.geteuid() == 0:
        pytest.skip("root (as in CI) can write anywhere; the check needs an ordinary user")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    assert main(["ingest", str(spec), "--db", str(folder / "x.db")]) == 2
    assert "cannot write" in one_error_line(capsys)


def test_locked_database(db, spec, capsys, monkeypatch):
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_S", 0.1)
    # the same SQLite library as specbrowser's: two copies in one process do not see each
    # other's locks (POSIX locks are per process)
    blocker = connection.DRIVER.connect(str(db))
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        assert main(["ingest", str(spec), "--db", str(db)]) == 2
        assert "locked" in one_error_line(capsys)
    finally:
        blocker.rollback()
        blocker.close()


def test_failed_ingest_leaves_database_as_it_was(db, spec, monkeypatch):
    before = open_database(db).db["chunks"].count

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(store.sets.ChunkSets, "insert", boom)
    spec.write_text(spec.read_text().replace("sec-b", "sec-c"))
    assert main(["ingest", str(spec), "--db", str(db)]) == 130
    database = open_database(db)
    assert database.db["chunks"].count == before
    assert (
        database.db.execute("SELECT count(*) FROM sections WHERE id = 'sec-b'").fetchone()[0] == 1
    )


def test_commands_without_the_app_do_not_import_textual():
    code = (
        "import sys, specbrowser.cli, specbrowser.session.ingest, specbrowser.store;"
        "sys.exit(1 if any(m.startswith('textual') for m in sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


CORE = ("model", "errors", "store", "chunking", "formats", "search", "session")
"""The core's modules and packages (as in the import-linter contract in pyproject.toml): none
of their modules may load Textual or Rich."""

IMPORT_EACH = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
    loaded = sorted({m.split(".")[0] for m in sys.modules} & {"textual", "rich"})
    if loaded:
        sys.exit(f"importing {name} loads {', '.join(loaded)}")
"""
"""Imports each module named on the command line in turn and stops at the first that loads
Textual or Rich. Imports only add to ``sys.modules``, so one interpreter that passes them all
shows that each of them, imported alone, loads neither."""


def core_modules() -> list[str]:
    """Every module of the core, found from the files (nothing imported): a name of
    :data:`CORE` is a module file or a package, whose ``__init__`` comes first."""
    root = Path(specbrowser.__file__).parent
    names = []
    for name in CORE:
        files = [root / f"{name}.py", *sorted((root / name).rglob("*.py"))]
        for path in filter(Path.is_file, files):
            parts = path.relative_to(root.parent).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_core_modules_do_not_import_textual_or_rich():
    names = core_modules()
    assert {"specbrowser.model", "specbrowser.store"} <= set(names) and len(names) > 25
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH, *names], check=False, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_python_dash_m(db):
    result = subprocess.run(
        [sys.executable, "-m", "specbrowser", "stats", str(db), "--json"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and json.loads(result.stdout)["sections"] == 2


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda tmp: tmp / "missing.html", "does not exist"),
        (lambda tmp: tmp / "empty_dir", "without .html"),
        (lambda tmp: tmp / "notes.html", "is not HTML"),
        (
            lambda tmp: tmp / "notes.db",
            "is not a SQLite database",
        ),  # named as a database: its error
        (lambda tmp: tmp / "missing.db", "does not exist (create it with: specbrowser ingest"),
    ],
)
def test_open_checks_spec_input_before_starting_the_app(tmp_path, capsys, make, message):
    (tmp_path / "empty_dir").mkdir()
    (tmp_path / "notes.html").write_text("plain words only\n")
    (tmp_path / "notes.db").write_text("plain words only\n")
    assert main(["open", str(make(tmp_path))]) == 2
    assert message in one_error_line(capsys)


def test_open_refuses_two_databases(db, tmp_path, capsys):
    other = tmp_path / "copy.db"
    other.write_bytes(db.read_bytes())
    assert main(["open", str(db), str(other)]) == 2
    assert "one database" in one_error_line(capsys)


def test_open_db_refuses_policy_options_naming_the_rechunk_that_gives_the_set(db, capsys):
    """open DB shows the active set: policy options would be ignored, so they are refused
    with the command that makes their set active."""
    assert main(["open", str(db), "--threshold", "3000", "--tags", "p"]) == 2
    line = one_error_line(capsys)
    assert "takes no policy options" in line
    assert line.endswith(f"specbrowser rechunk {db} --threshold 3000 --tags p")


@pytest.mark.parametrize("argv", [["open", "DB"], ["demo"]])
def test_open_without_a_terminal_is_one_line_at_once(db, argv):
    """Standard input, output and error pipes (as in CI): exit 2 with one line, before Textual
    is imported, instead of escape codes into the pipe and a spinning app."""
    probe = (
        "import sys; from specbrowser.cli import main; status = main(sys.argv[1:]); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual'})); sys.exit(status)"
    )
    command = [sys.executable, "-c", probe, *(str(db) if a == "DB" else a for a in argv)]
    start = time.perf_counter()
    done = subprocess.run(
        command, stdin=subprocess.PIPE, capture_output=True, text=True, timeout=30, check=False
    )
    elapsed = time.perf_counter() - start
    assert done.returncode == 2 and done.stdout.strip() == "[]"  # Textual never imported
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{argv[0]} needs a terminal" in lines[0], done.stderr
    assert elapsed < 10  # about 0.5 s here; generous for a loaded CI machine


def test_stats_table_has_counts_by_layer_and_tag(db, capsys):
    assert main(["stats", str(db)]) == 0
    output = capsys.readouterr().out
    assert "by layer" in output and "section:" in output
    assert "by tag" in output and "(section):" in output


def test_piped_output_keeps_table_cells_whole(tmp_path):
    """Rich takes 80 columns for a pipe; ids and sizes of a wide table were cut there."""
    long_id = "sec-" + "very-long-section-identifier-" * 3 + "end"
    spec = write_spec(
        tmp_path,
        f'<emu-clause id="{long_id}"><h1><span class="secnum">1</span> A'
        "</h1>"
        + "".join(f"<p>para {i} " + "words here " * 60 + "</p>" for i in range(3))
        + "</emu-clause>",
    )
    path = tmp_path / "w.db"
    assert main(["ingest", str(spec), "--db", str(path), "--threshold", "400"]) == 0
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    result = subprocess.run(
        [sys.executable, "-m", "specbrowser", "subsections", str(path), long_id],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if f"{long_id}-p-" in line]
    assert len(rows) == 3 and all("666" in row for row in rows), result.stdout


def test_a_reader_that_stops_early_ends_the_command_quietly_with_141(tmp_path):
    """``show --recursive … | head -1``: Rich's own broken-pipe handling exited with 1."""
    spec = write_spec(
        tmp_path,
        '<emu-clause id="sec-a"><h1>A</h1>'
        + "".join(f"<p>para {i} " + "words here " * 200 + "</p>" for i in range(200))
        + "</emu-clause>",
    )
    path = tmp_path / "big.db"
    assert main(["ingest", str(spec), "--db", str(path), "--threshold", "400"]) == 0
    process = subprocess.Popen(
        [sys.executable, "-m", "specbrowser", "show", str(path), "sec-a", "--recursive"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # the reader goes away with most of the output unread
    assert process.wait(timeout=60) == 141
    assert process.stderr.read() == b""


@pytest.mark.parametrize(
    "argv, says",
    [
        (["search", "x.db", "q", "--layer", "bogus"], "argument --layer: invalid choice: 'bogus'"),
        (
            ["rechunk", "x.db", "--threshold", "abc"],
            "argument --threshold: 'abc' is not a whole number",
        ),
        (["ingest"], "the following arguments are required"),
        (["search", "x.db", "-x"], "a query that starts with - goes after -- and any options"),
        (["nope"], "argument COMMAND: invalid choice: 'nope'"),
    ],
)
def test_a_usage_mistake_is_one_line_naming_help(argv, says, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    line = one_error_line(capsys)
    assert says in line and line.endswith("--help)") and "usage:" not in line


def test_the_console_script_is_the_light_entry_point():
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="specbrowser")
    assert script.value == "specbrowser.__main__:console"
    # importing it (as a re-chunk child re-imports the main module) loads no command line
    probe = "import sys, specbrowser.__main__; print('specbrowser.cli' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_fast_exit_keeps_the_status_and_flushes_every_line(db, capsys):
    """``leave`` skips the interpreter's teardown: what a command printed to a pipe must still
    arrive whole, and its status must be the command's."""
    assert main(["policies", str(db), "--json"]) == 0
    expected = capsys.readouterr().out
    cli = [sys.executable, "-m", "specbrowser"]
    done = subprocess.run([*cli, "policies", str(db), "--json"], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, expected)
    missing = subprocess.run([*cli, "show", str(db), "no-such-chunk"], capture_output=True)
    assert missing.returncode == 2 and missing.stderr.count(b"\n") == 1


def test_results_are_kept_for_the_fast_exit_only_when_the_process_ends_by_it(monkeypatch):
    import weakref

    import specbrowser.process as entry

    class Result:
        pass

    kept, freed = Result(), Result()
    alive = weakref.ref(freed)
    entry.keep_until_exit(freed)  # called in process: a no-op
    del freed
    assert alive() is None and entry._kept == []
    monkeypatch.setattr(entry, "_leaving", True)
    monkeypatch.setattr(entry, "_kept", [])
    entry.keep_until_exit(kept)
    assert entry._kept == [kept]


def test_ctrl_c_while_the_command_line_loads_is_one_line_and_130(monkeypatch, capsys):
    import types

    from specbrowser.__main__ import run

    class Loading(types.ModuleType):
        def __getattr__(self, name):
            raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "specbrowser.cli", Loading("specbrowser.cli"))
    assert run() == 130
    assert capsys.readouterr().err == "interrupted; nothing was changed\n"
    assert gc.isenabled()  # the imports' pause of the collector ended with them


@pytest.mark.parametrize("argv", [["stats"], ["policies"], ["subsections", "sec-a"]])
def test_output_to_a_file_or_a_pipe_has_no_padded_line_ends(db, capsys, argv):
    """Rich pads a table's title, cells and caption with spaces to the table's width."""
    assert main([argv[0], str(db), *argv[1:]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 3 and [line for line in lines if line.endswith(" ")] == []


def _last_progress_line(stage: str, done: int, total: int) -> str:
    import io

    from rich.console import Console
    from rich.text import Text

    from specbrowser.cli._console import stage_progress

    buffer = io.StringIO()
    with stage_progress(
        "loading", Console(file=buffer, force_terminal=True, width=100)
    ) as progress:
        progress(stage, done, total)
    return Text.from_ansi(buffer.getvalue()).plain.strip().splitlines()[-1]


def test_progress_counts_the_chunked_sections():
    line = _last_progress_line("chunking", 5, 2253)
    assert line.startswith("chunking sections") and "5/2,253" in line


def test_progress_off_a_terminal_writes_nothing():
    """Piped stderr (CI, a script): no bar, and the stages still report without error."""
    import io

    from rich.console import Console

    from specbrowser.cli._console import stage_progress

    buffer = io.StringIO()
    with stage_progress("loading", Console(file=buffer, width=100)) as progress:
        progress("chunking", 5, 2253)
        progress("storing", 0, 0)
    assert buffer.getvalue() == ""


@pytest.mark.parametrize("stage", ["loading", "storing"])
def test_progress_of_a_stage_that_is_not_counted_shows_no_count(stage):
    """It showed "storing 0/1" for the whole write."""
    line = _last_progress_line(stage, 0, 0)
    assert line.startswith(stage) and "/" not in line


def test_ingest_and_rechunk_report_the_store_stage_uncounted(tmp_path, spec):
    from specbrowser.session.ingest import ingest
    from specbrowser.session.rechunk import rechunk

    calls: list[tuple[str, int, int]] = []
    ingest(
        [spec],
        tmp_path / "p.db",
        ChunkPolicy(threshold=400),
        lambda *call: calls.append(call),
    )
    assert calls[-1] == ("storing", 0, 0) and ("chunking", 2, 2) in calls
    calls.clear()
    rechunk(
        open_database(tmp_path / "p.db"),
        ChunkPolicy(threshold=300),
        progress=lambda *call: calls.append(call),
    )
    assert calls[0] == ("loading", 0, 0) and calls[-1] == ("storing", 0, 0)


@pytest.mark.parametrize(
    ("command", "option", "values"),
    [
        ("search", "--mode", types.SEARCH_MODES),
        ("search", "--layer", types.LAYERS),
        ("mismatches", "--kind", types.MISMATCH_KINDS),
        ("export", "--format", types.EXPORT_FORMATS),
        ("export", "--content", types.CONTENT_KINDS),
    ],
)
def test_option_choices_are_the_vocabulary(command, option, values):
    """Each closed set of words is defined once (specbrowser.types); the options offer it."""
    from specbrowser.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    action = next(a for a in sub.choices[command]._actions if option in a.option_strings)
    assert tuple(action.choices) == values
    assert action.default in (None, values[0])


def test_every_overrun_reason_and_mismatch_kind_is_explained():
    assert set(types.OVERRUN_EXPLANATIONS) == set(types.OVERRUN_REASONS)
    assert set(types.MISMATCH_EXPLANATIONS) == set(types.MISMATCH_KINDS)


def test_search_with_an_empty_query_exits_2_with_one_line(toylang_db, capsys):
    assert main(["search", str(toylang_db), ""]) == 2
    err = capsys.readouterr().err.strip()
    assert "the query is empty" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("query", ["...", "[[ ]]", "%", "--"])
def test_search_with_nothing_searchable_exits_2_with_one_line(toylang_db, capsys, query):
    assert main(["search", str(toylang_db), "--mode", "lexical", "--", query]) == 2
    err = capsys.readouterr().err.strip()
    assert "has no letter or digit" in err and len(err.splitlines()) == 1


def test_demo_says_where_its_database_is(tmp_path, monkeypatch, capsys, terminal):
    import specbrowser.cli.app as cli_app
    from specbrowser.session import opening

    db = tmp_path / "demo.db"
    monkeypatch.setattr(opening, "cache_db_for", lambda paths: db)
    monkeypatch.setattr(cli_app, "_run_app", lambda *args: 0)
    assert main(["demo"]) == 0
    assert " ".join(capsys.readouterr().err.split()) == f"ingesting into {db}"
    assert main(["demo", "--no-open"]) == 0  # the summary's title names it
    assert main(["demo"]) == 0
    assert " ".join(capsys.readouterr().err.split()) == f"opening {db}"


def test_ingest_summary_counts_every_toc_mismatch_kind(tmp_path, capsys):
    """The TOC row names each kind the sample has, toc_entry_without_section included (a TOC
    entry, so the chunk set's stats, which count sections, never hold it)."""
    from specbrowser.types import MISMATCH_KINDS
    from tests.helpers import MISMATCHED_TOC

    assert main(["ingest", str(MISMATCHED_TOC), "--db", str(tmp_path / "m.db")]) == 0
    # the row may wrap, even inside a word: the table read without spaces and borders
    out = "".join(capsys.readouterr().out.split()).replace("│", "")
    row = out[out.index("TOCmismatches") :]
    assert all(f"{kind}:" in row for kind in MISMATCH_KINDS), row


def test_two_specs_of_one_title_are_one_spec_and_the_second_replaces_the_first(tmp_path):
    """Without a canonical URL or shortname a spec's identity is its title: two editions of
    one title are the same spec, so the newer bytes replace the older (and only them)."""
    db = tmp_path / "e.db"
    paths = []
    for name, body in zip(("a.html", "b.html"), ("<p>one</p>", "<p>two</p>"), strict=True):
        section = f"<emu-clause id='sec-a'><h1><span class='secnum'>1</span> A</h1>{body}"
        paths.append(write_spec(tmp_path, section + "</emu-clause>", name))
    assert main(["ingest", str(paths[0]), "--db", str(db)]) == 0
    assert main(["ingest", str(paths[1]), "--db", str(db)]) == 0
    database = open_database(db)
    assert database.corpus.count() == 1
    assert "two" in database.chunk("sec-a").text


def test_ingest_adds_another_spec_beside_the_stored_one(tmp_path, capsys):
    """Another spec in --db joins it: every chunk set and the stored spec's chunks stay."""
    from specbrowser.session import Session
    from tests.helpers import MISMATCHED_TOC, SAMPLE

    db = tmp_path / "e.db"
    assert main(["ingest", str(SAMPLE), "--db", str(db)]) == 0
    with Session.open(db) as session:
        before = [c.text for c in session.store.iter_chunks()]
    capsys.readouterr()
    assert main(["ingest", str(MISMATCHED_TOC), "--db", str(db)]) == 0
    assert "a spec added to the corpus" in " ".join(capsys.readouterr().out.split())
    with Session.open(db) as session:
        first = session.store.corpus.all()[0]
        assert [c.text for c in session.store.iter_chunks(None, first.id)] == before
        assert len(session.specs()) == 2


@pytest.mark.parametrize(
    "args",
    [
        ["rechunk", "{db}", "--threshold", "99999999999999999999"],
        ["search", "{db}", "x", "--limit", "99999999999999999999"],
        ["eval", "{db}", "{queries}", "--k", "99999999999999999999"],
        ["rechunk", "{db}", "--max-depth", "99999999999999999999"],
    ],
)
def test_huge_numbers_are_one_line_not_a_traceback(db, args, capsys):
    from tests.helpers import ROOT

    queries = ROOT / "sample_specs" / "toylang-queries.tsv"
    filled = [a.format(db=db, queries=queries) for a in args]
    with pytest.raises(SystemExit) as exit_info:  # argparse's usage error
        main(filled)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "at most" in err or "from 1 to" in err
    assert "Traceback" not in err


def test_no_command_prints_the_commands(capsys):
    # a new user's first try: the --help listing, not an error (new-user trial)
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: specbrowser") and "rechunk" in out and "search" in out


@pytest.mark.skipif(not SAMPLE.exists(), reason="sample spec missing")
def test_show_separates_each_fact_of_the_header(tmp_path, capsys):
    # "… chars · over threshold: …", not run together (new-user trial)
    db = tmp_path / "toy.db"
    assert main(["ingest", str(SAMPLE), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["show", str(db), "sec-long-prose"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert re.search(r" chars \([\d,]+ without markers\) · ov", header), header


def test_an_ingest_after_one_that_failed_in_the_same_process_works(tmp_path):
    # a failed parse left the store's import thread running: the next ingest (the app's, a
    # program's) then took sqlite-utils half imported. Its own interpreter: nothing imported yet
    empty = tmp_path / "empty.html"
    empty.write_text("<!doctype html><html><head><title>x</title></head><body></body></html>")
    program = (
        "import sys\n"
        "from specbrowser.cli import main\n"
        f"assert main(['ingest', {str(empty)!r}, '--db', {str(tmp_path / 'a.db')!r}]) == 2\n"
        f"assert main(['ingest', {str(SAMPLE)!r}, '--db', {str(tmp_path / 'b.db')!r}]) == 0\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_every_argument_of_every_command_says_what_it_is():
    """From a new user's trial: `--help` listed the DB argument of most commands, show's
    --recursive and advise's --strategies with no text."""
    import argparse

    from specbrowser.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    silent = [
        f"{name} {action.dest}"
        for name, parser in commands.choices.items()
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction) and not action.help
    ]
    assert silent == []
