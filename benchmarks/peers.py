"""The tools a user would pick instead, side by side with ``redline apply``: same document, same
edits (the anchor and its replacement), each peer in its own throw-away virtual environment under
``$TMPDIR`` that the benchmark makes itself (``pip install``: PyPI, or the machine's index), kept
for the next run -- or the interpreter of an environment that already holds them, named by
``$REDLINE_BENCH_PEERS`` (nothing installed then; a peer it cannot import is a row saying so).
A peer that cannot be installed -- no network, no Python new enough -- is skipped, and the table
says so.  A peer whose releases declare a newer Python than its code needs (docx-redline 1.0.3
declares >= 3.12 and runs on 3.10 and 3.11: its tests' syntax and imports, and the runner below
applying all 20 edits) is installed with ``--ignore-requires-python`` where only an older Python
is at hand, and the table's note says so.

* python-docx: open + save (no edit at all: the reference every row below is read against);
* docx-redline: ``Redliner(...).replace_text(anchor, replacement)`` per edit, ``save``;
* adeu (Python >= 3.12): ``RedlineEngine(...).apply_edits([ModifyText(...)])``, ``save_to_stream``;
* docx-editor (Python >= 3.12): ``Document.open(...)``, per edit ``find_text(anchor)`` and
  ``replace(found, replacement)`` (its edits name their paragraph), ``save``.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

VENVS = Path(tempfile.gettempdir()) / "redline-bench-peers"


@dataclass(frozen=True)
class Peer:
    name: str  # as the table says it
    packages: tuple[str, ...]  # what pip installs
    min_python: tuple[int, int]  # the oldest Python its code runs on
    declared: tuple[int, int] | None = None  # the newer one its releases declare, where they do


PEERS = (
    Peer("python-docx", ("python-docx",), (3, 9)),
    Peer("docx-redline", ("docx-redline",), (3, 10), declared=(3, 12)),
    Peer("adeu", ("adeu",), (3, 12)),
    Peer("docx-editor", ("docx-editor",), (3, 12)),
)

# Runs inside a peer's environment: argv = peer, document, edits (JSON [[anchor, replacement]]),
# output; prints {"seconds": open + edits + save, "applied": edits it applied}.
RUNNER = r"""
import json, sys, tempfile, time
peer, doc, edits_path, out = sys.argv[1:5]
edits = json.load(open(edits_path, encoding="utf-8"))
t0 = time.perf_counter()
applied = 0
if peer == "python-docx":
    import docx
    docx.Document(doc).save(out)
elif peer == "docx-redline":
    from docx_redline import Redliner
    r = Redliner(doc, author="bench")
    for anchor, new in edits:
        try:
            applied += 1 if r.replace_text(anchor, new) else 0
        except Exception:
            pass
    r.save(out)
elif peer == "adeu":
    from io import BytesIO
    from adeu import ModifyText, RedlineEngine
    engine = RedlineEngine(BytesIO(open(doc, "rb").read()), author="bench")
    applied, _skipped = engine.apply_edits([ModifyText(target_text=a, new_text=n) for a, n in edits])
    open(out, "wb").write(engine.save_to_stream().getvalue())
elif peer == "docx-editor":
    from docx_editor import Document
    with tempfile.TemporaryDirectory() as ws:
        d = Document.open(doc, author="bench", force_recreate=True, workspace_dir=ws)
        for anchor, new in edits:
            try:
                found = d.find_text(anchor)  # its edits name the paragraph: found by the text
                if found is not None:
                    d.replace(found, new)
                    applied += 1
            except Exception:
                pass
        d.save(out)
        d.close()
else:
    raise SystemExit("unknown peer " + peer)
print(json.dumps({"seconds": time.perf_counter() - t0, "applied": applied}))
"""


def find_python(minimum: tuple[int, int]) -> str | None:
    """An interpreter at least ``minimum``: this one, one on the PATH, or one of pyenv's."""
    if sys.version_info[:2] >= minimum:
        return sys.executable
    candidates = [shutil.which(f"python3.{minor}") for minor in range(minimum[1], 16)]
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates += sorted(glob.glob(f"{root}/versions/3.*/bin/python3"), reverse=True)
    for exe in candidates:
        if not exe:
            continue
        try:
            out = subprocess.run(
                [exe, "-c", "import sys; print(*sys.version_info[:2])"],
                capture_output=True,
                text=True,
                timeout=30,
            )
            major, minor = map(int, out.stdout.split())
        except (OSError, ValueError, subprocess.SubprocessError):
            continue
        if (major, minor) >= minimum:
            return exe
    return None


def environment(
    peers: tuple[Peer, ...], say: object = print, notes: dict[str, str] | None = None
) -> tuple[str | None, dict[str, str]]:
    """The interpreter of one throw-away environment holding every peer it could install, and why
    each other peer is missing; ``notes`` (when given) gets how a peer was installed if not as
    its release asks (``--ignore-requires-python``)."""
    assert callable(say)
    missing: dict[str, str] = {}
    given = os.environ.get("REDLINE_BENCH_PEERS")  # an environment already holding them (no pip)
    if given:
        return given, _missing_in(given, peers)
    exe = find_python(max(p.min_python for p in peers))
    if exe is None:
        exe = find_python(min(p.min_python for p in peers))
    if exe is None:
        return None, {p.name: "no Python to run it" for p in peers}
    version = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    venv = VENVS / f"py{version}"
    py = venv / "bin" / "python"
    if not py.exists():
        say(f"peers: making a throw-away environment {venv} ...")
        subprocess.run([exe, "-m", "venv", str(venv)], check=True, capture_output=True)
    have = subprocess.run([str(py), "-m", "pip", "list", "--format=json"], capture_output=True, text=True)
    installed = {d["name"].lower() for d in json.loads(have.stdout or "[]")}
    vi = tuple(map(int, version.split(".")))
    for peer in peers:
        if vi < peer.min_python:
            missing[peer.name] = f"needs Python >= {peer.min_python[0]}.{peer.min_python[1]}, found {version}"
            continue
        older = peer.declared is not None and vi < peer.declared
        if older and notes is not None:
            assert peer.declared is not None
            notes[peer.name] = (
                f"installed on Python {version} with --ignore-requires-python (its release declares "
                f">= {peer.declared[0]}.{peer.declared[1]}; its code runs on {version})"
            )
        if all(p.lower() in installed for p in peer.packages):
            continue
        flags = ["--ignore-requires-python"] if older else []
        say(f"peers: pip install {' '.join(flags + list(peer.packages))} ...")
        got = subprocess.run(
            [str(py), "-m", "pip", "install", "-q", *flags, *peer.packages],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if got.returncode != 0:
            missing[peer.name] = (
                "could not be installed: " + (got.stderr.strip().splitlines() or ["?"])[-1][:120]
            )
    return str(py), missing


def _missing_in(py: str, peers: tuple[Peer, ...]) -> dict[str, str]:
    """The peers the interpreter ``py`` cannot import, each with why (nothing is installed)."""
    modules = {"python-docx": "docx", "docx-redline": "docx_redline", "docx-editor": "docx_editor"}
    missing: dict[str, str] = {}
    for peer in peers:
        got = subprocess.run([py, "-c", f"import {modules.get(peer.name, peer.name)}"], capture_output=True)
        if got.returncode != 0:
            missing[peer.name] = f"not installed in REDLINE_BENCH_PEERS={py}"
    return missing


def run_peer(py: str, peer: str, doc: Path, edits: Path, out: Path) -> dict[str, float]:
    proc = subprocess.run([py, "-c", RUNNER, peer, str(doc), str(edits), str(out)],
                          capture_output=True, text=True, check=True, timeout=1200)  # fmt: skip
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result
