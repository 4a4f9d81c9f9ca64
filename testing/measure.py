"""Time and peak memory of redline's commands, measured in a child process of their own.

Run as ``python -m testing.measure MODE ...`` (from the checkout: it imports ``redline`` from the
current folder). Peak memory is the kernel's: ``VmHWM`` of ``/proc/self/status``, reset between
measurements by writing 5 to ``/proc/self/clear_refs`` (Linux >= 4.0); lxml allocates outside
tracemalloc's view, so nothing in-process would see it.

Modes:

- ``jobs RESULTS`` -- a JSON list of jobs on stdin, each ``{"id", "argv"}`` with optional
  ``"prog"`` (``redline``, the default, or ``summarize``) and ``"stdin"`` (a file read as the
  command's standard input). Each job runs in this process, one after another; one JSON line per
  job goes to RESULTS (see :func:`run_job`). The hostile catalogues (``tests/test_hostile*.py``)
  run their whole catalogue through one such worker.
- ``load bare|stream|ours DOCX`` -- prints the KiB that reading DOCX adds to the peak: lxml's
  parse of ``word/document.xml`` (``bare``), the verify-only streaming view (``stream``) or the
  full view (``ours``). ``benchmarks/run.py`` takes the median of a few.
- ``launch RESULT STDERR ARGV...`` -- runs ARGV as a child and writes its exit code, CPU seconds
  and peak RSS (``os.wait4``) to RESULT as JSON. A forked child's peak counts the pages it shared
  with its parent before exec, so the parent is this small interpreter rather than pytest.

Keep the imports at the top light: they are part of every measurement's baseline.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO


def status(key: str) -> int:
    """``/proc/self/status``'s *key* in kB; without ``/proc``, the process's peak so far."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:  # no /proc: kB on Linux, bytes on macOS
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak // 1024 if sys.platform == "darwin" else peak
    return 0


def reset_peak() -> bool:
    """Reset ``VmHWM`` to the current resident set; False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _main_of(prog: str) -> Callable[[list[str]], int]:
    # imported on demand: a catalogue of redline runs does not pay summarize's imports
    if prog == "redline":
        from redline_cli.redline import main as redline_main

        return redline_main
    if prog == "summarize":
        from redline_cli.summarize import main as summarize_main

        return summarize_main
    raise ValueError(f"unknown program {prog!r}")


class _Stdin:
    """A stand-in for ``sys.stdin`` whose ``buffer`` is a file (what the commands read)."""

    def __init__(self, path: str) -> None:
        self.buffer: BinaryIO = open(path, "rb")  # noqa: SIM115 - closed by run_job


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Run one job in this process; its row: ``id``, ``rc`` (None when it raised), ``crash`` (the
    traceback), the tails of ``stderr`` and ``stdout``, wall ``seconds``, ``cpu`` seconds,
    ``peak_kb``/``peak_mb`` (the peak during the job, interpreter and imports included),
    ``base_kb`` (the resident set at its start) and ``reset`` (whether the peak could be reset)."""
    main = _main_of(job.get("prog", "redline"))
    reset = reset_peak()
    base = status("VmRSS")
    err, out = io.StringIO(), io.StringIO()
    crash = None
    saved = sys.stdin
    stdin = _Stdin(job["stdin"]) if job.get("stdin") else None
    if stdin is not None:
        sys.stdin = stdin
    started, cpu_started = time.perf_counter(), time.process_time()
    rc: int | None
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            rc = main(job["argv"])
    except BaseException:
        rc, crash = None, traceback.format_exc()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    peak = status("VmHWM")
    if stdin is not None:
        stdin.buffer.close()
        sys.stdin = saved
    return {
        "id": job["id"],
        "rc": rc,
        "crash": crash,
        "stderr": err.getvalue()[-20000:],
        "stdout": out.getvalue()[-20000:],
        "seconds": seconds,
        "cpu": cpu,
        "peak_kb": peak,
        "peak_mb": peak / 1024,
        "base_kb": base,
        "reset": reset,
    }


def run_jobs(results_path: str) -> None:
    """Every job of stdin's JSON list, one row each to *results_path* (flushed as it goes)."""
    jobs = json.load(sys.stdin)
    with open(results_path, "w") as results:
        for job in jobs:
            results.write(json.dumps(run_job(job)) + "\n")
            results.flush()


def load_peak_kib(mode: str, path: str) -> int:
    """The KiB reading *path* adds to this process's peak (modes: see the module's docstring)."""
    import zipfile

    with open(path, "rb") as fh:
        data = fh.read()
    root: object
    if mode == "bare":
        from lxml import etree

        xml = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml")
        reset_peak()
        before = status("VmRSS")
        root = etree.fromstring(xml)
    elif mode == "stream":
        from redline.opc.package import Package
        from redline.read.build import verify_only_view

        reset_peak()
        before = status("VmRSS")
        root = verify_only_view(Package.from_bytes(data, stream_main=True))
    elif mode == "ours":
        from redline.opc.package import Package
        from redline.read.build import build_view

        reset_peak()
        before = status("VmRSS")
        root = build_view(Package.from_bytes(data))
    else:
        raise ValueError(f"unknown mode {mode!r}")
    peak = status("VmHWM") - before
    del root  # held until the peak is read
    return peak


def launch(result_path: str, stderr_path: str, argv: Sequence[str]) -> None:
    """Run *argv* as a child; write its exit code, peak RSS (KiB) and CPU seconds to *result_path*."""
    import os
    import subprocess

    with open(stderr_path, "wb") as err:
        proc = subprocess.Popen(list(argv), stdout=subprocess.DEVNULL, stderr=err)
        _, wait_status, usage = os.wait4(proc.pid, 0)
    with open(result_path, "w") as out:
        json.dump(
            {
                "rc": os.waitstatus_to_exitcode(wait_status),
                "maxrss_kb": usage.ru_maxrss,
                "cpu": usage.ru_utime + usage.ru_stime,
            },
            out,
        )


_USAGE = "usage: python -m testing.measure jobs RESULTS | load MODE DOCX | launch RESULT STDERR ARGV..."


def main(argv: Sequence[str]) -> int:
    match list(argv):
        case ["jobs", results]:
            run_jobs(results)
        case ["load", mode, path]:
            print(load_peak_kib(mode, path))
        case ["launch", result, stderr, *command] if command:
            launch(result, stderr, command)
        case _:
            print(_USAGE, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
