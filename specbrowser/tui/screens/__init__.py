"""Screens: the main browser and the ingest progress screen."""
