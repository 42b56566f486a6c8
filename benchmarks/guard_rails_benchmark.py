"""Chunk quality of the two breakdown strategies, seed and guarded, on the real ECMA-262.

For each policy, chunked in one process (no database) under ``--strategy seed`` and
``guarded`` (default minimum 200), prints one Markdown table row per strategy:

- chunks: section chunks (no document chunk);
- tiny: breakdown subsections (layer ``subsection`` or ``table_row``) whose text without
  markers is under 100 characters, and their share of all chunks; smallest: the least such text;
- breakdown markers: characters of markers that name a breakdown subsection, over all chunk
  characters (child-section markers, which every set has, apart);
- grew: chunks longer than their own Markdown before their breakdown (the text with their
  breakdown subsections put back, :func:`specbrowser.chunking.reassemble.reassemble`;
  whitespace normalised on both sides);
- over: chunks over the threshold, by reason;
- chunk s: wall time of :func:`specbrowser.chunking.pipeline.chunk_spec` (parse not included).

    python benchmarks/guard_rails_benchmark.py [--spec PATH] [--min-chars N] [POLICY ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPEC = ROOT.parent / "shared" / "specs" / "ecma262" / "index.html"

POLICIES: dict[str, dict[str, object]] = {
    "default-5000": {},
    "default-2000": {"threshold": 2000},
    "default-1000": {"threshold": 1000},
    "tr-2000": {
        "threshold": 2000,
        "breakdown_tags": ("emu-table", "emu-grammar", "tr", "p"),
    },
    "ol-li-1000": {"threshold": 1000, "breakdown_tags": ("ol", "li")},
    "alg-ol-li-p-400": {
        "threshold": 400,
        "breakdown_tags": ("emu-alg", "ol", "li", "p"),
    },
    "note-alg-ol-p-1500": {
        "threshold": 1500,
        "breakdown_tags": ("emu-note", "emu-alg", "ol", "p"),
    },
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    parser.add_argument("--min-chars", type=int, default=200)
    parser.add_argument("policies", nargs="*", metavar="POLICY", help=", ".join(POLICIES))
    args = parser.parse_args()
    unknown = [name for name in args.policies if name not in POLICIES]
    if unknown:
        parser.error(f"unknown policy {unknown[0]!r}; choose from {', '.join(POLICIES)}")
    if not args.spec.exists():
        print(f"spec not found: {args.spec}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    from specbrowser.chunking.markers import MARKER_RE, find_markers
    from specbrowser.chunking.pipeline import chunk_spec
    from specbrowser.chunking.policy import ChunkPolicy
    from specbrowser.chunking.reassemble import normalize_whitespace, reassemble
    from specbrowser.formats import load_spec
    from specbrowser.formats.ecmarkup import CHUNKING_RULES

    print(
        "| policy | strategy | chunks | tiny (< 100) | smallest | breakdown markers "
        "| child markers | grew | over | chunk s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.policies or POLICIES:
        for strategy in ("seed", "guarded"):
            policy = ChunkPolicy(
                **POLICIES[name],  # type: ignore[arg-type]
                strategy=strategy,  # type: ignore[arg-type]
                min_chars=args.min_chars,
            )
            parsed = load_spec(args.spec)
            start = time.perf_counter()
            chunks = chunk_spec(parsed, policy, rules=CHUNKING_RULES).chunks
            seconds = time.perf_counter() - start
            by_id = {c.id: c for c in chunks}
            total = sum(c.size for c in chunks)
            breakdown = child = tiny = grew = 0
            smallest: int | None = None
            for chunk in chunks:
                for marker in find_markers(chunk.text):
                    target = by_id.get(marker.target_id)
                    if target is not None and target.parent_id == chunk.id:
                        breakdown += marker.end - marker.start
                    else:
                        child += marker.end - marker.start
                if chunk.parent_id is not None:
                    own = len(MARKER_RE.sub("", chunk.text).strip())
                    tiny += own < 100
                    smallest = own if smallest is None else min(smallest, own)
                if any(by_id[s].parent_id == chunk.id for s in chunk.subsections if s in by_id):
                    before = len(normalize_whitespace(reassemble(chunk.id, by_id)))
                    grew += len(normalize_whitespace(chunk.text)) > before
            over = Counter(c.over_threshold for c in chunks if c.over_threshold)
            reasons = ", ".join(f"{k} {v:,}" for k, v in sorted(over.items()))
            print(
                f"| {name} | {strategy} | {len(chunks):,} | {tiny:,} "
                f"({100 * tiny / len(chunks):.1f} %) | {smallest} "
                f"| {100 * breakdown / total:.2f} % | {100 * child / total:.2f} % | {grew:,} "
                f"| {sum(over.values()):,} ({reasons}) | {seconds:.2f} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
