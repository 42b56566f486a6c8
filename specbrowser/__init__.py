"""specbrowser: see and fix how a long technical specification is cut into chunks."""

__version__ = "0.1.0"
