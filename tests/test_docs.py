"""The docs cannot rot (sqlite-utils' ``tests/test_docs.py`` is the model): every command, every
code and every public name is documented, the generated pages are current, every relative link
points at a file, the README stays a front page, and the site builds."""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import redline
from docs import gen
from redline_cli import redline as redline_cli
from redline_cli import summarize as summarize_cli
from shared_schema import Code

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = sorted(DOCS.glob("*.md"))
_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def _subcommands(prog: str, parser: argparse.ArgumentParser) -> list[str]:
    return [
        f"{prog} {name}"
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    ]


COMMANDS = _subcommands("redline", redline_cli.build_parser()) + _subcommands(
    "summarize", summarize_cli.build_parser()
)


def test_the_parsers_have_the_commands_we_know() -> None:
    assert {"redline view", "redline apply", "redline review", "summarize check"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_section_in_the_cli_page(command: str) -> None:
    assert f"### `{command}`" in (DOCS / "cli.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_is_in_the_readme_commands_table(command: str) -> None:
    assert f"| `{command}" in README.read_text(encoding="utf-8")


@pytest.mark.parametrize("code", list(Code), ids=str)
def test_every_code_has_a_section_in_the_codes_page(code: Code) -> None:
    assert f"### `{code.value}`\n" in (DOCS / "codes.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", redline.__all__)
def test_every_public_name_is_in_the_python_api_page(name: str) -> None:
    text = (DOCS / "python-api.md").read_text(encoding="utf-8")
    assert re.search(rf"`{re.escape(name)}[`(]", text), f"{name} is not in docs/python-api.md"


def test_the_generated_pages_are_current() -> None:
    assert gen.stale() == [], "a generated page is stale: run python -m docs.gen"


def test_the_generator_lists_the_commands_the_parsers_have() -> None:
    assert gen.commands() == COMMANDS


def test_the_readme_is_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines: move reference to docs/"


def _links(path: Path) -> list[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return [target for target in _LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:|#", target)]


@pytest.mark.parametrize("path", [README, *PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_at_a_file(path: Path) -> None:
    missing = [target for target in _links(path) if not (path.parent / target.partition("#")[0]).exists()]
    assert not missing, f"{path.name} links to files that do not exist: {missing}"


def test_the_link_check_sees_links() -> None:
    assert "docs/codes.md" in _links(README)
    assert "codes.md" in _links(DOCS / "index.md")


def test_every_page_is_in_the_site_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert [page.name for page in PAGES if f" {page.name}" not in nav] == []


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    build = ["build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")]
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", *build],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _documented_paths() -> list[str]:
    """The first column of python-api.md's "Module paths" table: ``redline.compare.compare``, ..."""
    text = (DOCS / "python-api.md").read_text(encoding="utf-8")
    table = text.split("## Module paths", 1)[1].split("###", 1)[0]
    return re.findall(r"^\| `([a-z_]+(?:\.[A-Za-z_]+)*)", table, re.MULTILINE)


@pytest.mark.parametrize("path", _documented_paths())
def test_every_documented_module_path_resolves(path: str) -> None:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            value = getattr(value, name)
        return
    pytest.fail(f"{path} names no module")


def test_the_module_paths_table_is_read() -> None:
    assert {"redline.compare.compare", "redline.opc.inputs.read_regular", "redline.read.scan.Check"} <= set(
        _documented_paths()
    )
