"""`import redline`: the public API in ``__all__``, each name documented, typed, and cheap to import."""

from __future__ import annotations

import inspect
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import redline
from redline_cli.redline import main as redline_main

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("shared_schema", "redline", "summarize", "review", "redline_cli")


def test_every_public_name_resolves_and_is_documented() -> None:
    assert redline.__all__ == sorted(redline.__all__, key=lambda n: (not n[0].isupper(), n))
    for name in redline.__all__:
        value = getattr(redline, name)
        if name == "__version__":
            continue
        assert inspect.getdoc(value), f"redline.{name} has no docstring"
    assert set(redline.__all__) <= set(dir(redline))
    with pytest.raises(AttributeError):
        _ = redline.no_such_name


def test_the_front_door_covers_load_apply_report_and_tools() -> None:
    for name in ("load_view", "apply_reply", "ApplyOptions", "Report", "EditResult", "DocumentTools",
                 "json_schema", "instructions", "refusal_feedback", "EditsRequest"):  # fmt: skip
        assert name in redline.__all__, name


def test_importing_redline_imports_nothing_heavy() -> None:
    code = (
        "import sys, redline; "
        "heavy = [m for m in ('pydantic', 'lxml', 'rapidfuzz', 'redline.apply', 'shared_schema') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_the_version_is_one_and_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "redline.__version__"}
    assert redline_main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"redline {redline.__version__}"


def test_every_installed_package_is_marked_typed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = config["tool"]["setuptools"]["package-data"]
    for package in LAYERS:
        assert (ROOT / package / "py.typed").is_file(), package
        assert data.get(package) == ["py.typed"], package
