"""The MCP server front end: an agent's tools over one database, read-only (search,
fetch_section_chunks, check_subsections, get_chunk, reassemble_section, outline, chunk_sets),
each declared once in :data:`specbrowser.mcp.tools.TOOLS`.

A thin front end like the CLI and the app: it holds :class:`~specbrowser.session.Session`
objects (one per worker thread, :mod:`specbrowser.mcp.reader`) and never the store; it never
imports Textual or Rich. :func:`~specbrowser.mcp.server.build_server` makes the server,
:func:`~specbrowser.mcp.server.serve` runs it over stdio or streamable HTTP.
"""
