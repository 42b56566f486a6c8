"""Widgets of the browser: the lazy chunk tree and the chunk view."""
