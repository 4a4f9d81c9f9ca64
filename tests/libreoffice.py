"""Running LibreOffice for the oracles: its text export, plain or with changes accepted, and
:func:`probe` (loads, texts accepted and rejected, comments; ``tests/libreoffice_probe.py``).

LibreOffice runs headless with a profile of its own (so it neither needs nor disturbs a running
LibreOffice) in a process group of its own, which is ended, and only it, when it overruns its
time (LibreOffice loops for ever on some documents, a ``w:basedOn`` cycle for one).
Imports nothing of the project.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

TXT_FILTER = "txt:Text (encoded):UTF8"


def run(cmd: Sequence[str], env: dict[str, str], timeout: float) -> None:
    """Run ``cmd`` in a process group of its own; end that group if it overruns ``timeout``."""
    proc = subprocess.Popen(
        list(cmd), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def uno_python() -> str | None:
    """A Python that has LibreOffice's ``uno`` module (Debian's ``python3-uno``), or None."""
    for candidate in dict.fromkeys(c for c in ("/usr/bin/python3", shutil.which("python3")) if c):
        try:
            done = subprocess.run(
                [candidate, "-c", "import uno"], capture_output=True, timeout=60, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return candidate
    return None


def text_exports(
    docs: Sequence[Path],
    accepted: Sequence[Path],
    tmp: Path,
    soffice: str,
    timeout: float = 900,
) -> tuple[dict[Path, str], dict[Path, str]]:
    """LibreOffice's text export of ``docs``, and of ``accepted`` once LibreOffice accepted every
    tracked change (``tests/libreoffice_accept.py``; none without a Python that has ``uno``),
    by document.  ``tmp``: an empty folder to work in.  The plain conversion runs first: it
    sets up the profile both use."""
    profile = (tmp / "profile").as_uri()
    env = {**os.environ, "HOME": str(tmp)}
    out, out_accepted = tmp / "out", tmp / "accepted"
    out.mkdir(parents=True)
    out_accepted.mkdir()
    setup = [] if docs else list(accepted[:1])  # a conversion sets up the profile
    run(
        [soffice, f"-env:UserInstallation={profile}", "--headless", "--convert-to", TXT_FILTER,
         "--outdir", str(out if docs else tmp / "setup"), *map(str, [*docs, *setup])],
        env, timeout,
    )  # fmt: skip
    python = uno_python() if accepted else None
    if python is not None:
        script = Path(__file__).with_name("libreoffice_accept.py")
        run([python, str(script), str(out_accepted), profile, *map(str, accepted)], env, timeout)

    def read(folder: Path, which: Sequence[Path]) -> dict[Path, str]:
        found = {doc: folder / f"{doc.stem}.txt" for doc in which}
        return {doc: path.read_text(encoding="utf-8") for doc, path in found.items() if path.exists()}

    return read(out, docs), read(out_accepted, accepted)


def probe(docs: dict[str, bytes], soffice: str, timeout: float = 900) -> dict[str, dict[str, Any]]:
    """What LibreOffice makes of each of ``docs`` (name -> bytes), by name: whether it loads
    over UNO, its text as stored, accepted and rejected by LibreOffice, its comments and where
    they stand (``tests/libreoffice_probe.py`` says what each holds).  Raises when no Python
    with ``uno`` is installed (the caller skips)."""
    python = uno_python()
    if python is None:
        raise FileNotFoundError("no Python with LibreOffice's uno module")
    script = Path(__file__).with_name("libreoffice_probe.py")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = {}
        for name, data in docs.items():
            path = folder / "in" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            paths[name] = path
        out = folder / "probe.json"
        env = {**os.environ, "HOME": str(folder), "PATH": os.environ.get("PATH", "") or "/usr/bin"}
        soffice_dir = str(Path(soffice).parent)
        if soffice_dir not in env["PATH"].split(os.pathsep):
            env["PATH"] = soffice_dir + os.pathsep + env["PATH"]
        profile = (folder / "profile").as_uri()
        run([python, str(script), str(out), profile, *map(str, paths.values())], env, timeout)
        if not out.exists():
            return {name: {"loaded": False, "error": "the probe wrote nothing"} for name in docs}
        found: dict[str, dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))
    missing = {"loaded": False, "error": "not probed"}
    return {name: found.get(str(path), missing) for name, path in paths.items()}


def uno_readings(
    jobs: Sequence[tuple[str, bytes]], tmp: Path, timeout: float = 900
) -> list[dict[str, Any] | None]:
    """LibreOffice's reading of each (mode, document) -- mode ``none``, ``accept`` or ``reject``
    (every tracked change decided by LibreOffice first) -- by ``tests/libreoffice_props.py``:
    blocks in order (paragraphs with their style and per-portion character attributes, tables
    by rows), the count and types of the tracked changes; None for a document it could not
    open.  ``tmp``: an empty folder to work in.  Needs a Python that has ``uno``."""
    python = uno_python()
    if python is None:
        raise FileNotFoundError("no Python with LibreOffice's uno module")
    out = tmp / "readings"
    out.mkdir(parents=True)
    args: list[str] = []
    for n, (mode, data) in enumerate(jobs):
        path = tmp / f"in{n}.docx"
        path.write_bytes(data)
        args.append(f"{mode}:{path}")
    env = {**os.environ, "HOME": str(tmp)}
    script = Path(__file__).with_name("libreoffice_props.py")
    run([python, str(script), str(out), (tmp / "profile").as_uri(), *args], env, timeout)
    found: list[dict[str, Any] | None] = []
    for n in range(len(jobs)):
        path = out / f"{n}.json"
        found.append(json.loads(path.read_text(encoding="utf-8")) if path.exists() else None)
    return found
