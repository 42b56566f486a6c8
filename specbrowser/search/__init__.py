"""Lexical, semantic and hybrid search, embeddings and token counts."""
