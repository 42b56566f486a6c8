"""HTML in, section tree out.

:func:`load_spec` is the entry point: it reads a spec file or folder, detects its kind and returns
a :class:`ParsedSpec` (document, sections in document order, and each section's own-content
element ready for the breakdown).
"""

from specbrowser.formats.ecmarkup import ParsedSpec, load_spec

__all__ = ["ParsedSpec", "load_spec"]
