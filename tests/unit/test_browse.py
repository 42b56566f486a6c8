"""What the agent tools read through the Session (``specbrowser.session.browse``), on small
hand-written specs: names resolved to chunks, the outline, reassembly."""

from __future__ import annotations

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import NotFoundError
from specbrowser.session import Session
from specbrowser.session.ingest import ingest
from tests.helpers import write_spec

LONG = " ".join(f"Sentence {n} of a paragraph long enough to be cut out." for n in range(8))

BODY = f"""
<emu-clause id="sec-a"><h1><span class="secnum">1</span> A</h1>
  <p id='odd&amp;"id'>The paragraph an odd anchor names, quite unlike the others.</p>
  <p>{LONG}</p>
  <p id="far">{LONG} The far paragraph ends here.</p>
  <emu-clause id="sec-b"><h1><span class="secnum">1.1</span> B</h1><p>Bee.</p></emu-clause>
</emu-clause>
<emu-clause id="sec-c"><h1><span class="secnum">2</span> C</h1><p>Sea.</p></emu-clause>
"""


@pytest.fixture
def session(tmp_path):
    path = tmp_path / "b.db"
    ingest([write_spec(tmp_path, BODY)], path, ChunkPolicy(threshold=600, min_chars=100))
    with Session.open(path) as opened:
        yield opened


def test_a_name_is_a_chunk_id_a_section_number_or_an_anchor(session):
    assert session.locate("sec-b").resolved_as == "chunk"
    assert session.locate("1.1").chunk_id == "sec-b"
    odd = session.locate('odd&"id')  # written escaped in the HTML, matched as written
    assert (odd.resolved_as, odd.section_id) == ("anchor", "sec-a")
    assert "an odd anchor names" in session.chunk(odd.chunk_id).text
    far = session.locate("far")
    assert far.resolved_as == "anchor" and far.chunk_id.startswith("sec-a-p-")
    assert "The far paragraph ends here." in session.chunk(far.chunk_id).text
    with pytest.raises(NotFoundError, match="no chunk, section, section number or anchor"):
        session.locate("nowhere")


def test_reassembled_puts_the_paragraphs_back_and_keeps_child_sections(session):
    whole = session.reassembled("sec-a")
    assert whole.chunks > 1 and whole.child_sections == ["sec-b"]
    assert "The far paragraph ends here." in whole.text
    assert session.reassembled("sec-c").chunks == 1


def test_outline_depth_counts_from_the_root(session):
    assert [e.section_id for e in session.outline(depth=1)] == ["sec-a", "sec-c"]
    assert [e.section_id for e in session.outline()] == ["sec-a", "sec-b", "sec-c"]
    under = session.outline("sec-a", 1)
    assert [e.section_id for e in under] == ["sec-a", "sec-b"]
    assert under[0].child_sections == 1 and under[0].chunks > 1 and under[0].number == "1"
    with pytest.raises(NotFoundError):
        session.outline("sec-nope")


def test_subsection_info_names_tags_and_sections(session):
    info = session.subsection_info(session.chunk("sec-a"))
    assert info[-1].id == "sec-b" and info[-1].is_section and info[-1].kind == "emu-clause"
    assert all(i.kind == "p" and not i.is_section for i in info[:-1])
