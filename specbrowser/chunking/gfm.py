"""GitHub-flavoured Markdown syntax that both the converter (:mod:`specbrowser.chunking.markdown`)
and the reassembly (:mod:`specbrowser.chunking.reassemble`) write, in a module without lxml: the
reassembly runs where no HTML is converted (the store, the app's start)."""

from __future__ import annotations


def to_cell(markdown: str) -> str:
    """Markdown as the content of one GFM table cell: one line, ``<br>`` for each line break,
    ``|`` escaped (GFM splits cells before it parses code spans, so pipes in code too)."""
    return markdown.replace("\n", "<br>").replace("|", "\\|")
