"""The Textual app: a browser over the chunk tree of an ingested spec.

Importing :mod:`specbrowser.tui` pulls in Textual; the core modules never import it.
"""
