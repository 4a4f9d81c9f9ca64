"""The built wheel, installed (not editable) in a fresh virtual environment, as a user gets it.

Offline: the wheel is built without build isolation (setuptools comes from the test
environment) and installed with ``--no-deps --no-index``; the fresh environment sees the test
environment's third-party packages (lxml, pydantic, ...) through one ``.pth`` line -- a plain
path, which is not a site directory, so the test environment's own (editable) redline stays
out of sight, and the test checks that what runs is the wheel's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from shared_schema import json_schema

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("shared_schema", "redline", "summarize", "redline_review", "review", "redline_cli")

USER_SCRIPT = '''\
"""What a user writes: every call typed through redline's py.typed packages."""
from pathlib import Path

import redline


def redline_file(doc: Path, reply: str) -> int:
    loaded = redline.load_view(doc.read_bytes())
    if isinstance(loaded, redline.Refusal):
        return 3
    _, view = loaded
    text: str = view.text
    options = redline.ApplyOptions(dry_run=True)
    outcome: redline.Outcome = redline.apply_reply(doc.read_bytes(), reply, options)
    for edit in outcome.report.edits:
        if edit.error is not None:
            message: str = edit.error.message
            print(edit.index, edit.status.value, message)
    schema: dict[str, object] = redline.json_schema("edits", "openai")
    feedback: str | None = redline.refusal_feedback(outcome.report)
    print(len(text), len(schema), feedback)
    return outcome.exit_code
'''


# a user's shell: nothing of the checkout on the path
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _run(*args: str | Path, cwd: Path) -> str:
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd, env=ENV)
    assert proc.returncode == 0, f"{args}: {proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.mark.slow
def test_the_wheel_installs_runs_and_type_checks_in_a_fresh_venv(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", str(dist), str(src)],
        capture_output=True, text=True, cwd=tmp_path, env=ENV,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    assert "Deprecat" not in build.stdout + build.stderr  # no warning about our own metadata
    [wheel] = dist.glob("redline-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for package in PACKAGES:
        assert f"{package}/py.typed" in names, package
    assert not any(n.startswith(("tests/", "testing/", "examples/", "benchmarks/")) for n in names)
    assert "License-Expression: Apache-2.0" in metadata
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert "python-docx" not in metadata.split("Provides-Extra")[0]  # not a run-time dependency

    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    paths = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = Path(_run(python, "-c", paths, cwd=tmp_path).strip())
    (purelib / "test-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", wheel,
         cwd=tmp_path)  # fmt: skip

    where = _run(python, "-c", "import redline; print(redline.__file__)", cwd=tmp_path)
    assert where.startswith(str(purelib)), where  # the wheel's copy, not the checkout's
    version = _run(venv / "bin" / "redline", "--version", cwd=tmp_path)
    assert version.strip() == f"redline {_version()}"
    schema = json.loads(_run(venv / "bin" / "redline", "schema", "edits", "--for", "openai", cwd=tmp_path))
    assert schema == json_schema("edits", "openai")
    names_out = _run(python, "-c", "import redline; print(redline.__all__)", cwd=tmp_path)
    assert "apply_reply" in names_out and "load_view" in names_out

    script = tmp_path / "user_script.py"
    script.write_text(USER_SCRIPT)
    checked = _run(sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", "/dev/null",
                   "--python-executable", python, script, cwd=tmp_path)  # fmt: skip
    assert "Success" in checked
    # and the checker really looks: a wrong type in the same script is an error
    script.write_text(USER_SCRIPT.replace("text: str = view.text", "text: int = view.text"))
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", "/dev/null",
         "--python-executable", str(python), str(script)],
        capture_output=True, text=True, cwd=tmp_path, env=ENV,
    )  # fmt: skip
    assert proc.returncode == 1 and "Incompatible types in assignment" in proc.stdout


def _version() -> str:
    import redline

    return redline.__version__
