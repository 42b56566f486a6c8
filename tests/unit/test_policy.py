"""Policy version hash: stable for the same settings, new for any change."""

from __future__ import annotations

import subprocess
import sys

import pytest

from specbrowser.chunking import policy as policy_module
from specbrowser.chunking.markdown_config import MarkdownConfig
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import PolicyError


def test_same_settings_same_hash_across_processes():
    code = "from specbrowser.chunking.policy import ChunkPolicy; print(ChunkPolicy().version)"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert other.stdout.strip() == ChunkPolicy().version
    assert ChunkPolicy(threshold=5000).version == ChunkPolicy().version


@pytest.mark.parametrize(
    "changed",
    [
        ChunkPolicy(threshold=4999),
        ChunkPolicy(breakdown_tags=("emu-grammar", "emu-table", "td", "p")),
        ChunkPolicy(breakdown_tags=("emu-table", "emu-grammar", "tr", "p")),
        ChunkPolicy(max_depth=2),
        ChunkPolicy(markdown=MarkdownConfig(inline_code=("var",))),
    ],
)
def test_any_change_gives_a_new_hash(changed):
    assert changed.version != ChunkPolicy().version


def test_converter_version_is_part_of_the_hash(monkeypatch):
    before = ChunkPolicy().version
    monkeypatch.setattr(policy_module, "CONVERTER_VERSION", policy_module.CONVERTER_VERSION + 1)
    assert ChunkPolicy().version != before


def test_settings_round_trip():
    policy = ChunkPolicy(
        threshold=123,
        breakdown_tags=("tr", "p"),
        max_depth=1,
        markdown=MarkdownConfig(link=("a",)),
    )
    assert ChunkPolicy.from_settings(policy.settings()) == policy


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threshold": 0},
        {"max_depth": -1},
        {"breakdown_tags": ("p", "p")},
        {"breakdown_tags": ("P!",)},
    ],
)
def test_bad_settings_raise_policy_error(kwargs):
    with pytest.raises(PolicyError):
        ChunkPolicy(**kwargs)


@pytest.mark.parametrize(
    "typed, tag",
    [
        ("emu-alg  >  ol", "emu-alg > ol"),
        (" emu-alg >\tol ", "emu-alg > ol"),
        ('div[title="a  b"]   p', 'div[title="a  b"] p'),  # whitespace in quotes is the value's
        ("P", "p"),
        ("div.Note", "div.Note"),  # class names are case-sensitive
    ],
)
def test_typed_tags_are_one_tag_however_they_are_spaced(typed, tag):
    """``emu-alg  >  ol`` made another policy version than ``emu-alg > ol`` (new-user trial)."""
    policy = ChunkPolicy.from_tag_list(5000, f"emu-table,{typed}", 3)
    assert policy.breakdown_tags == ("emu-table", tag)
    assert policy.version == ChunkPolicy.from_tag_list(5000, f"emu-table,{tag}", 3).version


def test_the_seed_strategy_has_no_minimum_so_any_typed_one_is_the_same_set():
    typed = ChunkPolicy(strategy="seed", min_chars=300)
    assert typed.version == ChunkPolicy(strategy="seed").version
    assert typed.describe().endswith("· seed")
    assert ChunkPolicy(min_chars=300).version != ChunkPolicy().version  # guarded: it counts


def test_describe_names_marked_edits_and_not_the_default():
    from dataclasses import replace

    from specbrowser.chunking.markdown_config import MarkdownConfig

    plain = ChunkPolicy()
    marked = replace(plain, markdown=MarkdownConfig(edits="marked"))
    assert "edits" not in plain.describe()
    assert marked.describe() == plain.describe() + " · edits marked"
    assert marked.version != plain.version
