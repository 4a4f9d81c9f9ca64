"""Shared fixtures: the real-document corpus, the external readers (pandoc, LibreOffice) and the
generated lease.  The helpers behind them are ``tests/support.py`` and ``tests/oracles.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import support
from tests.oracles import tool


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The folder of real .docx files named by ``$REDLINE_CORPUS`` (skips when unset)."""
    value = os.environ.get("REDLINE_CORPUS")
    if not value:
        pytest.skip("REDLINE_CORPUS is not set")
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"REDLINE_CORPUS={value} is not a folder")
    return path


@pytest.fixture(scope="session")
def corpus_docs(corpus_dir: Path) -> list[Path]:
    """The corpus's documents (``*.docx``), sorted (skips without a corpus)."""
    return support.corpus_paths()


@pytest.fixture(scope="session")
def pandoc() -> str:
    """The path of ``pandoc`` (skips when it is not installed)."""
    return tool("pandoc")


@pytest.fixture(scope="session")
def soffice() -> str:
    """The path of LibreOffice's ``soffice`` (skips when it is not installed)."""
    return tool("soffice")


@pytest.fixture(scope="session")
def lease() -> bytes:
    """The generated lease (``testing.contractgen``, seed 0): ``tests.support.lease()``."""
    return support.lease()
