"""Behaviour held still: every public output for the samples and the corpus equals the recording
in ``tests/golden.json`` (see :mod:`tests.golden`; re-record only for a change meant to alter
behaviour, and say why in its commit)."""

from __future__ import annotations

import json
import os

import pytest

from tests import golden


@pytest.mark.slow
def test_every_public_output_is_as_recorded() -> None:
    recorded = json.loads(golden.GOLDEN.read_text(encoding="utf-8"))
    observed = golden.observe()
    if os.environ.get("REDLINE_CORPUS"):
        assert {k for k in recorded if k.startswith("corpus/")} <= set(observed), "a corpus document is gone"
    differences = golden.compare(recorded, observed)
    assert differences == [], "\n".join(differences[:50])
