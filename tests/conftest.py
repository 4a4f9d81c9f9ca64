"""Shared fixtures: the real-document corpus and the external readers (pandoc, LibreOffice)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


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


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


@pytest.fixture(scope="session")
def pandoc() -> str:
    """The path of ``pandoc`` (skips when it is not installed)."""
    return _tool("pandoc")


@pytest.fixture(scope="session")
def soffice() -> str:
    """The path of LibreOffice's ``soffice`` (skips when it is not installed)."""
    return _tool("soffice")
