"""LibreOffice's reading of documents' character and paragraph formatting, as stored, with every
tracked change accepted, or with every one rejected (by LibreOffice).

Run by a Python that has LibreOffice's ``uno`` module (Debian's ``python3-uno``), not by the
project's virtual environment:

    /usr/bin/python3 tests/libreoffice_fmt.py OUT.json PROFILE_URL DOC.docx ...

For each document and each mode (``as_is``, ``accept``, ``reject``), a fresh copy is opened in
one headless LibreOffice, ``.uno:AcceptAllTrackedChanges`` / ``.uno:RejectAllTrackedChanges``
dispatched, and every paragraph of the body (table cells' included, in order) read: its
``ParaStyleName`` and, per character, ``CharWeight``, ``CharPosture``, ``CharUnderline``,
``CharStrikeout``, ``CharCaseMap``, ``CharHighlight`` and ``CharBackColor`` (one entry per text
portion, with its text).  ``as_is`` also lists the redlines' types.  OUT.json: ``{doc: {mode:
{"paragraphs": [{"style", "portions": [[text, {attr: value}]]}], "redlines": [type, ...]}}}``;
a document LibreOffice cannot open gets ``{"error": "..."}``.  Imports nothing of the project.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import uno  # type: ignore[import-not-found]
from com.sun.star.beans import PropertyValue  # type: ignore[import-not-found]

_PER_DOCUMENT = 180.0
ATTRS = ("CharWeight", "CharPosture", "CharUnderline", "CharStrikeout", "CharCaseMap", "CharHighlight",
         "CharBackColor")  # fmt: skip
MODES = {"as_is": None, "accept": ".uno:AcceptAllTrackedChanges", "reject": ".uno:RejectAllTrackedChanges"}


def _prop(name: str, value: object) -> Any:
    prop = PropertyValue()
    prop.Name, prop.Value = name, value
    return prop


def _office(profile: str, pipe: str) -> tuple[subprocess.Popen[bytes], Any]:
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
    _stop(proc)
    raise SystemExit("LibreOffice did not start")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):  # the group this script started, only that
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _plain(value: Any) -> Any:
    if hasattr(value, "value"):  # a uno enum (CharPosture)
        return str(value.value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _paragraphs(text: Any, out: list[dict[str, Any]]) -> None:
    enum = text.createEnumeration()
    while enum.hasMoreElements():
        el = enum.nextElement()
        if el.supportsService("com.sun.star.text.TextTable"):
            for name in el.getCellNames():
                _paragraphs(el.getCellByName(name).getText(), out)
            continue
        if not el.supportsService("com.sun.star.text.Paragraph"):
            continue
        portions = []
        penum = el.createEnumeration()
        while penum.hasMoreElements():
            portion = penum.nextElement()
            if portion.TextPortionType != "Text":
                continue
            got = portion.getString()
            if got:
                portions.append([got, {a: _plain(portion.getPropertyValue(a)) for a in ATTRS}])
        out.append({"style": el.ParaStyleName, "portions": portions})


def _read(ctx: Any, path: str, command: str | None) -> dict[str, Any]:
    smgr = ctx.ServiceManager
    desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    dispatcher = smgr.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
    load = (_prop("Hidden", True), _prop("Silent", True), _prop("FilterName", "MS Word 2007 XML"))
    comp = desktop.loadComponentFromURL(uno.systemPathToFileUrl(path), "_blank", 0, load)
    if comp is None:
        raise RuntimeError("not opened")
    try:
        redlines = []
        enum = comp.getRedlines().createEnumeration()
        while enum.hasMoreElements():
            redlines.append(enum.nextElement().RedlineType)
        if command is not None:
            dispatcher.executeDispatch(comp.getCurrentController().getFrame(), command, "", 0, ())
            if comp.getRedlines().getCount():
                raise RuntimeError("tracked changes left after deciding them all")
        paragraphs: list[dict[str, Any]] = []
        _paragraphs(comp.getText(), paragraphs)
        return {"paragraphs": paragraphs, "redlines": redlines}
    finally:
        comp.close(True)


def main(out: str, profile: str, docs: list[str]) -> int:
    work = tempfile.mkdtemp(prefix="libreoffice-fmt-")
    results: dict[str, Any] = {}
    proc, ctx = _office(profile, f"redline_fmt_{os.getpid()}")
    try:
        for n, doc in enumerate(docs):
            watchdog = threading.Timer(_PER_DOCUMENT, os.killpg, (proc.pid, signal.SIGKILL))
            watchdog.start()
            try:
                mine: dict[str, Any] = {}
                for mode, command in MODES.items():
                    path = os.path.join(work, f"{n}-{mode}-{os.path.basename(doc)}")
                    shutil.copyfile(doc, path)
                    mine[mode] = _read(ctx, path, command)
                results[doc] = mine
            except Exception as exc:
                results[doc] = {"error": f"{type(exc).__name__}: {exc}"}
                watchdog.cancel()
                with contextlib.suppress(Exception):
                    _stop_now(proc)
                proc, ctx = _office(profile, f"redline_fmt_{os.getpid()}_{n}")
            finally:
                watchdog.cancel()
    finally:
        with contextlib.suppress(Exception):
            ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx).terminate()
        _stop(proc)
        shutil.rmtree(work, ignore_errors=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(results, f)
    return 0


def _stop_now(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
