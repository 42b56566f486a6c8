"""Issue 28's targets on every shared spec (``../shared/specs``): one Markdown table, spec × target.

Each spec is ingested once under its format's default policy (a temporary database) and
measured as the real-spec tests measure it (``tests/unit/test_real_matrix*.py``, whose
helpers this script uses):

- U+FFFD: chunk characters U+FFFD that the section's stored HTML lacks (``specbrowser check``);
- dead links: in-document links whose id an element of the *source* has but that lead to no
  chunk, over the links whose id the source has (links to ids the source lacks are the spec's
  own broken links: counted apart, in parentheses);
- heading paths: ``check``'s heading-path findings, and how many are the front matter that no
  TOC lists (``missing_from_toc`` with an empty TOC path: not a false mismatch);
- words missing: :func:`tests.helpers.word_coverage` (the source's words, text nodes apart,
  that the chunks lack);
- reassembly: cases of the policy matrix (:data:`tests.helpers.REAL_POLICIES`, both strategies)
  with a section that does not reassemble, and ``check``'s table findings;
- pilcrows: Markdown links whose text is ``¶``, ``§`` or ``#``, and heading lines that hold an
  in-document link;
- notes: elements of the converter's ``note`` role (notes, examples, warnings, Bikeshed's and
  ecmarkup's) and ``aside`` elements (xml2rfc's notes) in the sections, and the blockquotes
  that open with a note, example or warning label in bold (``> **Note**``) in the chunks;
- titles: for a source, its sections whose title equals the rendered page's (same ids).

    python benchmarks/fidelity_benchmark.py [--no-matrix] [NAME ...]
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lxml import etree  # noqa: E402
from lxml.cssselect import CSSSelector  # noqa: E402

from specbrowser.chunking.fragments import fragment_keys  # noqa: E402
from specbrowser.chunking.markdown import to_markdown  # noqa: E402
from specbrowser.chunking.markdown_config import MarkdownConfig  # noqa: E402
from specbrowser.chunking.pipeline import chunk_spec  # noqa: E402
from specbrowser.chunking.reassemble import normalize_whitespace, reassemble  # noqa: E402
from specbrowser.formats import format_for_kind, load_spec, policy_for  # noqa: E402
from specbrowser.session.check import check_chunk_set  # noqa: E402
from specbrowser.session.ingest import ingest  # noqa: E402
from specbrowser.session.links import in_document_links  # noqa: E402
from specbrowser.store import open_database  # noqa: E402
from tests.helpers import REAL_POLICIES, REAL_SPECS, word_coverage  # noqa: E402
from tests.unit.test_real_matrix import _files  # noqa: E402

RENDERED = {
    "ecma262-source": "ecma262",
    "temporal-source": "temporal",
    "import-attributes-source": "import-attributes",
}
_PILCROW_LINK = re.compile(r"\[[¶§#]\]\(")
_HEADING_LINK = re.compile(r"^#{1,6} .*\]\(#", re.MULTILINE)
_LABEL = re.compile(
    r"(?:^|<br>)[ >]*> \*\*[^*\n<]*(?:note|example|warning)[^*\n<]*\*\*",
    re.MULTILINE | re.IGNORECASE,
)


def source_ids(paths: list[Path]) -> set[str]:
    ids: set[str] = set()
    for path in paths:
        root = etree.parse(str(path), etree.HTMLParser(huge_tree=True)).getroot()
        ids.update(v for el in root.iter() if isinstance(el.tag, str) and (v := el.get("id")))
    return ids


def note_elements(parsed) -> int:
    selector = CSSSelector(", ".join((*MarkdownConfig().note, "aside")))
    count = 0
    for el in parsed.elements.values():
        for note in selector(el):
            if not any(a.tag == "del" for a in note.iterancestors()):
                count += 1
    return count


def matrix_failures(path: Path) -> tuple[int, int]:
    parsed = load_spec(path)
    rules = format_for_kind(parsed.document.kind).chunking_rules
    failing = cases = 0
    for chosen in REAL_POLICIES.values():
        for strategy in ("guarded", "seed"):
            policy = replace(chosen or policy_for(parsed.document.kind), strategy=strategy)
            chunks = {
                c.id: c for c in chunk_spec(copy.deepcopy(parsed), policy, rules=rules).chunks
            }
            cases += 1
            for section in parsed.sections:
                whole = to_markdown(
                    parsed.elements[section.id], policy.markdown, elements=rules.markdown_elements
                )
                if normalize_whitespace(reassemble(section.id, chunks)) != normalize_whitespace(
                    whole
                ):
                    failing += 1
                    break
    return failing, cases


def measure(name: str, folder: Path, with_matrix: bool, titles: dict[str, dict[str, str]]):
    path = REAL_SPECS[name]
    db = folder / f"{name}.db"
    started = time.perf_counter()
    result = ingest([path], db, policy_for(None), policy_for_kind=policy_for)
    files = _files(path)
    ids = source_ids(files)
    with open_database(db) as store:
        version = store.active_version()
        report = check_chunk_set(store, version)
        _total, links = in_document_links(store, version, list(store.iter_chunks()))
    in_source = [link for link in links if any(k in ids for k in fragment_keys(link.anchor))]
    dead = sum(link.target is None for link in in_source)
    foreign = len(links) - len(in_source)
    paths = report.findings["heading_path"]
    front = sum("missing_from_toc" in f.detail and "TOC ''" in f.detail for f in paths)
    missing, _extra, _lost = word_coverage(result.chunks, files)
    texts = [c.text for c in result.chunks if c.section_id is not None]
    pilcrows = sum(len(_PILCROW_LINK.findall(t)) for t in texts)
    heading_links = sum(len(_HEADING_LINK.findall(t)) for t in texts)
    labels = sum(len(_LABEL.findall(t)) for t in texts)
    titles[name] = {s.id: s.display_title for s in result.parsed.sections}
    notes = note_elements(load_spec(path))
    matrix = matrix_failures(path) if with_matrix else None
    return {
        "name": name,
        "fffd": report.counts["replacement_char"],
        "dead": (dead, len(in_source), foreign),
        "paths": (report.counts["heading_path"], front),
        "missing": missing,
        "matrix": matrix,
        "tables": report.counts["table_columns"] + report.counts["table_header"],
        "not_reassembled": report.counts["not_reassembled"],
        "pilcrows": (pilcrows, heading_links),
        "notes": (notes, labels),
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", default=list(REAL_SPECS))
    parser.add_argument("--no-matrix", action="store_true", help="skip the policy matrix")
    args = parser.parse_args()
    titles: dict[str, dict[str, str]] = {}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.names:
            if not REAL_SPECS[name].exists():
                print(f"{name}: absent", file=sys.stderr)
                continue
            rows.append(measure(name, Path(tmp), not args.no_matrix, titles))
            print(f"{name}: {rows[-1]['seconds']:.1f} s", file=sys.stderr)
    print(
        "| spec | U+FFFD | dead links (spec's own) | heading paths (front matter) | words missing"
        " | matrix cases failing | not reassembled / table rows | pilcrow links / linked"
        " headings | notes / labelled | source titles = rendered |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        dead, linked, foreign = row["dead"]
        share = f"{dead} of {linked:,} ({dead / max(linked, 1):.2%}) (+{foreign})"
        matrix = "—" if row["matrix"] is None else f"{row['matrix'][0]} of {row['matrix'][1]}"
        rendered = RENDERED.get(row["name"])
        same = "—"
        if rendered in titles:
            source, other = titles[row["name"]], titles[rendered]
            shared = [i for i in source if i in other]
            agree = sum(source[i] == other[i] for i in shared)
            same = f"{agree} of {len(shared)} ({agree / max(len(shared), 1):.1%})"
        print(
            f"| {row['name']} | {row['fffd']} | {share} | {row['paths'][0]} ({row['paths'][1]})"
            f" | {row['missing']:.3%} | {matrix} | {row['not_reassembled']} / {row['tables']}"
            f" | {row['pilcrows'][0]} / {row['pilcrows'][1]} | {row['notes'][0]} /"
            f" {row['notes'][1]} | {same} |"
        )


if __name__ == "__main__":
    main()
