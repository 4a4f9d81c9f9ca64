"""The UNO bootstrap every LibreOffice script of the tests shares (``libreoffice_accept.py``,
``libreoffice_fmt.py``, ``libreoffice_rows.py``, ``libreoffice_props.py``,
``libreoffice_probe.py``): a headless LibreOffice of its own started and reached over a pipe,
a document opened hidden as Word 2007 XML, every tracked change accepted or rejected, and
LibreOffice stopped -- its process group killed when it does not quit.

Run by a Python that has LibreOffice's ``uno`` module (Debian's ``python3-uno``:
``/usr/bin/python3``), imported by the scripts beside it (their folder is the first on the
path).  Imports nothing of the project.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from typing import Any

import uno  # type: ignore[import-not-found]
from com.sun.star.beans import PropertyValue  # type: ignore[import-not-found]

__all__ = ["ACCEPT", "REJECT", "decide", "office", "open_docx", "prop", "stop", "stop_now", "terminate"]

ACCEPT, REJECT = ".uno:AcceptAllTrackedChanges", ".uno:RejectAllTrackedChanges"


def prop(name: str, value: object) -> Any:
    """A ``PropertyValue`` of ``name`` and ``value``."""
    out = PropertyValue()
    out.Name, out.Value = name, value
    return out


def office(profile: str, pipe: str) -> tuple[subprocess.Popen[bytes], Any]:
    """A headless LibreOffice with the profile ``profile`` (a ``file://`` URL of a folder of its
    own), in a process group of its own, listening on ``pipe``; and its component context."""
    proc = subprocess.Popen(
        ["soffice", f"-env:UserInstallation={profile}", "--headless", "--nologo", "--norestore",
         f"--accept=pipe,name={pipe};urp;"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(600):
        try:
            return proc, resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
        except Exception:
            time.sleep(0.1)
    stop(proc)
    raise SystemExit("LibreOffice did not start")


def terminate(ctx: Any) -> None:
    """Ask the LibreOffice of ``ctx`` to quit (the bridge goes as it does)."""
    with contextlib.suppress(Exception):
        ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx).terminate()


def stop(proc: subprocess.Popen[bytes], ctx: Any = None) -> None:
    """LibreOffice ``proc`` gone: asked to quit first when ``ctx`` is given, then waited for;
    its group (the one :func:`office` started, only that) killed after 20 s."""
    if ctx is not None:
        terminate(ctx)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        stop_now(proc)


def stop_now(proc: subprocess.Popen[bytes]) -> None:
    """LibreOffice ``proc``'s group killed, now."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def open_docx(ctx: Any, path: str) -> tuple[Any, Any, Any]:
    """The document at ``path`` opened hidden as Word 2007 XML: (component, desktop, dispatcher)."""
    smgr = ctx.ServiceManager
    desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    dispatcher = smgr.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
    load = (prop("Hidden", True), prop("Silent", True), prop("FilterName", "MS Word 2007 XML"))
    comp = desktop.loadComponentFromURL(uno.systemPathToFileUrl(path), "_blank", 0, load)
    if comp is None:
        raise RuntimeError("not opened")
    return comp, desktop, dispatcher


def decide(comp: Any, dispatcher: Any, command: str) -> None:
    """Every tracked change of ``comp`` accepted (:data:`ACCEPT`) or rejected (:data:`REJECT`)."""
    dispatcher.executeDispatch(comp.getCurrentController().getFrame(), command, "", 0, ())
