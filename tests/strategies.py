"""Hypothesis strategies shared by the property tests: ecmarkup-shaped spec bodies and chunk
policies.

``spec_html()`` draws one to three sections (``emu-clause``/``emu-annex``, nested two deep), each
holding paragraphs, tables, grammar, lists, notes, code and divs; every word is a unique ``wN``
token, so a test can count where each fragment went.
"""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

from specbrowser.chunking.policy import ChunkPolicy


@st.composite
def spec_html(draw) -> str:
    counter = itertools.count()
    section_ids = itertools.count()

    def words(n_max: int = 30) -> str:
        return " ".join(f"w{next(counter)}" for _ in range(draw(st.integers(1, n_max))))

    def block(depth: int) -> str:
        kind = draw(st.sampled_from(["p", "p", "table", "grammar", "list", "div", "note", "pre"]))
        if kind == "p":
            return f"<p>{words()} <var>{words(2)}</var> {words(5)}</p>"
        if kind == "table":
            rows = "".join(
                "<tr>"
                + "".join(f"<td>{cell(depth)}</td>" for _ in range(draw(st.integers(1, 3))))
                + "</tr>"
                for _ in range(draw(st.integers(1, 3)))
            )
            return (
                f'<emu-table id="t{next(counter)}"><figure><figcaption>Table {next(counter)}: cap'
                f"</figcaption><table><tbody>{rows}</tbody></table></figure></emu-table>"
            )
        if kind == "grammar":
            productions = []
            for _ in range(draw(st.integers(1, 3))):
                name = f"Prod{next(counter)}"
                rhs = "".join(
                    f"<emu-rhs><emu-t>{words(6)}</emu-t></emu-rhs>"
                    for _ in range(draw(st.integers(1, 3)))
                )
                productions.append(
                    f'<emu-production name="{name}"><emu-nt>{name}</emu-nt>'
                    f"<emu-geq>:</emu-geq>{rhs}</emu-production>"
                )
            return f"<emu-grammar>{''.join(productions)}</emu-grammar>"
        if kind == "list":
            items = "".join(f"<li>{words(8)}</li>" for _ in range(draw(st.integers(1, 4))))
            return f"<emu-alg><ol>{items}</ol></emu-alg>"
        if kind == "note":
            return (
                '<emu-note><span class="note">Note</span><div class="note-contents">'
                f"<p>{words()}</p></div></emu-note>"
            )
        if kind == "pre":
            return f"<pre><code>{words(20)}</code></pre>"
        inner = (
            "".join(block(depth + 1) for _ in range(draw(st.integers(1, 2))))
            if depth < 2
            else f"<p>{words()}</p>"
        )
        return f"<div>{inner}</div>"

    def cell(depth: int) -> str:
        if draw(st.booleans()):
            return words(40)
        return "".join(f"<p>{words(25)}</p>" for _ in range(draw(st.integers(1, 3))))

    def section(depth: int) -> str:
        tag = draw(st.sampled_from(["emu-clause", "emu-clause", "emu-annex"]))
        sid = f"sec-{next(section_ids)}"
        content = "".join(block(0) for _ in range(draw(st.integers(0, 4))))
        children = (
            "".join(section(depth + 1) for _ in range(draw(st.integers(0, 2)))) if depth < 2 else ""
        )
        tail = "".join(block(0) for _ in range(draw(st.integers(0, 1))))
        return f'<{tag} id="{sid}"><h1>Title {sid}</h1>{content}{children}{tail}</{tag}>'

    return "".join(section(0) for _ in range(draw(st.integers(1, 3))))


policies = st.builds(
    ChunkPolicy,
    threshold=st.integers(40, 800),
    breakdown_tags=st.permutations(
        [
            "emu-table",
            "emu-grammar",
            "td",
            "tr",
            "p",
            "li",
            "div",
            "ol",
            "emu-alg",
            "emu-note",
            "pre",
            "emu-alg > ol",
            "emu-production",
        ]
    ).flatmap(lambda tags: st.integers(0, len(tags)).map(lambda n: tuple(tags[:n]))),
    max_depth=st.integers(0, 4),
    strategy=st.sampled_from(["guarded", "seed"]),
    min_chars=st.sampled_from([0, 0, 40, 200]),
)
