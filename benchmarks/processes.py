"""Whole processes, as a user runs them: start-up, ``view`` and ``apply`` on a 10-page contract and
``apply`` on the 300-page one, each against the process a user would otherwise run (``import
docx``, python-docx open + text, python-docx open + save, the floor), interleaved, medians.

A process is measured by its CPU time (user + system, from the parent's ``RUSAGE_CHILDREN``):
on a shared 2-core machine it moves far less than wall time, and it counts every thread (our
parser check and deflate run on a second core; the references run on one).  Wall time is in the
note.  Every command runs with the bytecode of our packages compiled first, as an installed
wheel has it (a checkout with ``PYTHONDONTWRITEBYTECODE`` would otherwise compile every module
on every start).
"""

from __future__ import annotations

import compileall
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("shared_schema", "redline", "summarize", "review", "redline_cli")

# the console script's own body (pip's entry point), so ours and a checkout's run alike
_REDLINE = "import sys; from redline_cli.redline import main; sys.exit(main())"
_DOCX_IMPORT = "import docx"
_DOCX_TEXT = (
    "import sys, docx\n"
    "d = docx.Document(sys.argv[1])\n"
    "parts = [p.text for p in d.paragraphs]\n"
    "for t in d.tables:\n"
    "    for row in t.rows:\n"
    "        for cell in row.cells:\n"
    "            parts.extend(p.text for p in cell.paragraphs)\n"
    "sys.stdout.write('\\n'.join(parts) + '\\n')\n"
)
_DOCX_SAVE = "import sys, docx\ndocx.Document(sys.argv[1]).save(sys.argv[2])\n"
# the floor: what any editor of the main part pays (inflate it, parse it, deflate it back)
FLOOR = (  # the writer's deflate engine: libdeflate where installed (redline.opc.zipwrite.ENGINE)
    "import sys, zipfile, zlib\n"
    "from lxml import etree\n"
    "level = int(sys.argv[2])\n"
    "with zipfile.ZipFile(sys.argv[1]) as z:\n"
    "    xml = z.read('word/document.xml')\n"
    "root = etree.fromstring(xml)\n"
    "try:\n"
    "    from deflate import deflate_compress\n"
    "    body = deflate_compress(xml, level)\n"
    "except ImportError:\n"
    "    packer = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)\n"
    "    body = packer.compress(xml) + packer.flush()\n"
)


def compile_bytecode(root: Path = ROOT) -> None:
    """Write the bytecode of our packages under ``root`` (what ``pip install`` does)."""
    for name in PACKAGES:
        if (root / name).is_dir():
            compileall.compile_dir(str(root / name), quiet=1, workers=1)


@dataclass
class Command:
    name: str
    argv: list[str]
    env: dict[str, str] | None = None
    cwd: Path | None = None  # `python -c` puts the working folder first on the path
    codes: tuple[int, ...] = (0,)  # the exit statuses that are a run (`redline check`: 1, findings)


@dataclass
class Timing:
    cpu: float
    wall: float


def run_once(cmd: Command) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        cmd.argv, env=cmd.env, cwd=cmd.cwd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    if done.returncode not in cmd.codes:
        raise subprocess.CalledProcessError(done.returncode, cmd.argv)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def interleaved(commands: Sequence[Command], repeats: int) -> dict[str, Timing]:
    """Each command ``repeats`` times, round-robin (one warm-up round first: the page cache),
    medians of CPU and wall time."""
    for cmd in commands:
        run_once(cmd)
    cpus: dict[str, list[float]] = {c.name: [] for c in commands}
    walls: dict[str, list[float]] = {c.name: [] for c in commands}
    for _ in range(repeats):
        for cmd in commands:
            cpu, wall = run_once(cmd)
            cpus[cmd.name].append(cpu)
            walls[cmd.name].append(wall)
    return {n: Timing(statistics.median(cpus[n]), statistics.median(walls[n])) for n in cpus}


def python(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", code, *args]


def env_for(root: Path | None) -> dict[str, str]:
    """The environment a command runs in: our checkout, or ``root`` (an older checkout, for the
    before/after table) first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root or ROOT)
    return env


def redline(*args: str, root: Path | None = None, name: str = "", codes: tuple[int, ...] = (0,)) -> Command:
    """``redline ARGS`` from our checkout, or from ``root`` (run there: ``python -c`` puts the
    working folder first on the path); ``codes``: the exit statuses that are a run."""
    argv = [sys.executable, "-c", _REDLINE, *args]
    return Command(name or "redline " + " ".join(args[:1]), argv, env_for(root), root or ROOT, codes)


def docx_import() -> Command:
    return Command("import docx", python(_DOCX_IMPORT))


def docx_text(doc: Path) -> Command:
    return Command("python-docx open + text", python(_DOCX_TEXT, str(doc)))


def docx_save(doc: Path, out: Path) -> Command:
    return Command("python-docx open + save", python(_DOCX_SAVE, str(doc), str(out)))


def floor(doc: Path, level: int) -> Command:
    return Command("floor", python(FLOOR, str(doc), str(level)))


_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def import_offenders(args: Sequence[str], top: int = 10) -> list[tuple[str, float, float]]:
    """``python -X importtime`` of ``redline ARGS``: the modules with the largest own import
    time, as (module, self ms, cumulative ms)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _REDLINE, *args],
        env=env_for(None),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    rows = []
    for line in proc.stderr.splitlines():
        m = _IMPORT_LINE.match(line)
        if m:
            rows.append((m.group(4), int(m.group(1)) / 1000, int(m.group(2)) / 1000))
    rows.sort(key=lambda r: -r[1])
    return rows[:top]
