"""Counterparty files written by the other tools themselves (issue 30), for
``tests/test_their_redlines.py::test_files_other_tools_wrote`` (``$REDLINE_PEER_DOCS``).

Run by a Python that has the tool installed -- never the project's environment (the tools are
no dependency of ours; install them in a virtual environment of their own)::

    python -m venv /tmp/peers
    /tmp/peers/bin/pip install python-redlines python-redlines-docxodus docx-editor
    python3.12 -m venv /tmp/peers312 && /tmp/peers312/bin/pip install adeu docx-redline
    /tmp/peers312/bin/python testing/peers.py docx-redline IN.docx OUT.docx
    /tmp/peers312/bin/python testing/peers.py adeu IN.docx OUT.docx
    /tmp/peers/bin/python testing/peers.py docx-editor IN.docx OUT.docx
    /tmp/peers/bin/python testing/peers.py python-redlines IN.docx OUT.docx
    /usr/bin/python3 testing/peers.py libreoffice IN.docx OUT.docx   # python3-uno, soffice

Each writes the same kind of counterparty redline over any contract: words replaced, a
paragraph deleted, one inserted, text bolded, a paragraph realigned, a clause moved, a table
row inserted and one deleted -- and, where the tool can edit a file twice, a second author's
deletion and formatting inside the first one's insertion.  python-redlines compares the
document with a version edited here with python-docx.  Imports nothing of the project.
"""

from __future__ import annotations

import contextlib
import copy
import io
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

DATE = "2026-11-01T00:00:00Z"


def _attempt(done: list[str], name: str, step: Callable[[], object]) -> None:
    try:
        step()
        done.append(name)
    except Exception as exc:  # a tool that cannot do one step on this document: the others still
        print(f"skipped {name}: {type(exc).__name__}: {exc}"[:200], file=sys.stderr)


def _long_paragraphs(path: Path) -> list[str]:
    import docx  # python-docx, installed with every tool here

    return [p.text for p in docx.Document(str(path)).paragraphs if len(p.text) > 60]


def docx_redline(src: Path, out: Path) -> list[str]:
    from docx_redline import Redliner  # type: ignore[import-not-found]

    done: list[str] = []
    rl: Any = Redliner(str(src), author="DR Counsel", date=DATE)
    paras = [p for p in rl.paragraphs() if len(rl.text_of(p)) > 60]
    word = rl.text_of(paras[1]).split()[3]
    _attempt(done, "replace", lambda: rl.replace_text(f" {word} ", f" {word.upper()}-REVISED "))
    _attempt(
        done,
        "insert",
        lambda: rl.insert_paragraph_after(paras[3], "This inserted clause binds both parties forever."),
    )
    _attempt(done, "delete", lambda: rl.delete_paragraph(paras[5]))
    bold = " ".join(rl.text_of(paras[7]).split()[1:3])
    _attempt(done, "bold", lambda: rl.format_matching(bold, count=1, bold=True))
    _attempt(done, "align", lambda: rl.format_paragraph(paras[9], alignment=1))
    _attempt(done, "move", lambda: rl.move_paragraph(paras[11], after=paras[14]))
    tables = rl.tables()
    if tables:
        table = tables[0]
        width = len(table.rows[0].cells)
        _attempt(
            done,
            "row_insert",
            lambda: rl.insert_table_row(table, 1, values=[f"cell {k}" for k in range(width)]),
        )
        if len(table.rows) > 3:
            _attempt(done, "row_delete", lambda: rl.delete_table_row(table, len(table.rows) - 1))
    buf = io.BytesIO()
    rl.document.save(buf)
    second: Any = Redliner(io.BytesIO(buf.getvalue()), author="DR Partner", date="2026-11-02T00:00:00Z")
    _attempt(done, "nested_delete", lambda: second.delete_matching("binds both"))
    _attempt(done, "nested_italic", lambda: second.format_matching("parties forever", count=1, italic=True))
    second.document.save(str(out))
    return done


def adeu(src: Path, out: Path) -> list[str]:
    import docx
    from adeu import ModifyText, RedlineEngine  # type: ignore[import-not-found]
    from adeu.models import DeleteTableRow, InsertTableRow  # type: ignore[import-not-found]

    document = docx.Document(str(src))
    paras = _long_paragraphs(src)
    words = paras[1].split()
    engine: Any = RedlineEngine(io.BytesIO(src.read_bytes()), author="Adeu Counsel", timestamp=DATE)
    edits: list[Any] = [
        ModifyText(target_text=" ".join(words[2:5]), new_text=" ".join(words[2:4]) + " revised"),
        ModifyText(target_text=paras[4], new_text=""),
        ModifyText(target_text=paras[6], new_text=paras[6] + "\n\nA new paragraph added by adeu."),
    ]
    if document.tables:
        rows = document.tables[0].rows
        last = rows[-1].cells[0].text
        if last.strip():
            edits.append(
                InsertTableRow(
                    target_text=last, position="below", cells=[f"new {k}" for k in range(len(rows[-1].cells))]
                )
            )
        if len(rows) > 2 and rows[1].cells[0].text.strip():
            edits.append(DeleteTableRow(target_text=rows[1].cells[0].text))
    applied, _ = engine.apply_edits(edits)
    out.write_bytes(engine.save_to_stream().getvalue())
    return [f"{applied} edits"]


def docx_editor(src: Path, out: Path) -> list[str]:
    from docx_editor import Document  # type: ignore[import-not-found]

    done: list[str] = []
    paras = _long_paragraphs(src)
    with tempfile.TemporaryDirectory() as tmp:
        first = Path(tmp) / src.name
        shutil.copy(src, first)
        doc: Any = Document.open(
            first, author="DE Counsel", force_recreate=True, workspace_dir=Path(tmp) / "ws1"
        )
        words = paras[1].split()
        _attempt(
            done,
            "replace",
            lambda: doc.replace(doc.find_text(" ".join(words[3:6])), " ".join(words[3:5]) + " amended"),
        )
        _attempt(done, "delete", lambda: doc.delete(doc.find_text(" ".join(paras[3].split()[2:6]))))
        _attempt(
            done,
            "insert",
            lambda: doc.insert_after(doc.find_text(" ".join(paras[5].split()[:4])), " (as amended)"),
        )
        doc.save(str(out))
        doc.close()
        again = Path(tmp) / ("2-" + src.name)
        shutil.copy(out, again)
        doc2: Any = Document.open(
            again, author="DE Partner", force_recreate=True, workspace_dir=Path(tmp) / "ws2"
        )
        _attempt(done, "nested_delete", lambda: doc2.delete(doc2.find_text("amended")))
        _attempt(done, "nested_replace", lambda: doc2.replace(doc2.find_text("(as"), "(so"))
        doc2.save(str(out))
        doc2.close()
    return done


def python_redlines(src: Path, out: Path) -> list[str]:
    import docx
    from docx.text.paragraph import Paragraph
    from python_redlines.engines import DocxodusEngine  # type: ignore[import-not-found]

    document = docx.Document(str(src))
    paras = [p for p in document.paragraphs if len(p.text) > 60]

    def edit_run(p: Any, change: Callable[[str], str]) -> None:
        for r in p.runs:
            if len(r.text) > 12:
                r.text = change(r.text)
                return

    edit_run(paras[1], lambda t: t.replace(" ", " very ", 1))
    edit_run(paras[3], lambda t: t[: len(t) // 2] + " and nothing else" + t[len(t) // 2 :])
    gone: Any = paras[5]._p
    gone.getparent().remove(gone)
    new = copy.deepcopy(paras[7]._p)
    paras[7]._p.addnext(new)
    added = Paragraph(new, paras[7]._parent)
    for r in added.runs[1:]:
        run: Any = r._r
        run.getparent().remove(run)
    if added.runs:
        added.runs[0].text = "An added paragraph the other side wants."
    for r in paras[9].runs[:2]:
        r.bold = True
    edited = io.BytesIO()
    document.save(edited)
    result: Any = DocxodusEngine().run_redline("PR Counsel", src.read_bytes(), edited.getvalue())
    out.write_bytes(result[0] if isinstance(result, tuple) else result)
    return ["compared"]


def libreoffice(src: Path, out: Path) -> list[str]:  # pragma: no cover - needs python3-uno
    import os
    import subprocess
    import time

    import uno  # type: ignore[import-not-found]
    from com.sun.star.beans import PropertyValue  # type: ignore[import-not-found]

    def prop(name: str, value: object) -> Any:
        p = PropertyValue()
        p.Name, p.Value = name, value
        return p

    profile = tempfile.mkdtemp(prefix="lo-profile-")
    pipe = f"peers{os.getpid()}"
    office = subprocess.Popen(
        ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--nologo", "--norestore",
         f"--accept=pipe,name={pipe};urp;"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        ctx: Any = None
        for _ in range(300):
            try:
                ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
                break
            except Exception:
                time.sleep(0.1)
        smgr = ctx.ServiceManager
        config = smgr.createInstanceWithContext("com.sun.star.configuration.ConfigurationProvider", ctx)
        user = config.createInstanceWithArguments(
            "com.sun.star.configuration.ConfigurationUpdateAccess",
            (prop("nodepath", "/org.openoffice.UserProfile/Data"),),
        )
        user.setPropertyValue("givenname", "LO")
        user.setPropertyValue("sn", "Counsel")
        user.commitChanges()
        desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        work = Path(profile) / src.name
        shutil.copy(src, work)
        doc = desktop.loadComponentFromURL(
            uno.systemPathToFileUrl(str(work)), "_blank", 0, (prop("Hidden", True),)
        )
        doc.setPropertyValue("RecordChanges", True)
        text = doc.getText()
        paras = []
        found = text.createEnumeration()
        while found.hasMoreElements():
            p = found.nextElement()
            if p.supportsService("com.sun.star.text.Paragraph") and len(p.getString()) > 60:
                paras.append(p)
        c = text.createTextCursorByRange(paras[1].getStart())
        c.goRight(10, False)
        text.insertString(c, " [inserted by LO]", False)
        c = text.createTextCursorByRange(paras[2].getStart())
        c.goRight(5, False)
        c.goRight(20, True)
        c.setString("")
        c = text.createTextCursorByRange(paras[3].getStart())
        c.goRight(15, True)
        c.setPropertyValue("CharWeight", 150.0)
        paras[4].setPropertyValue("ParaAdjust", 3)
        c = text.createTextCursorByRange(paras[6].getStart())
        c.gotoEndOfParagraph(True)
        c.goRight(1, True)
        c.setString("")
        tables = doc.getTextTables()
        if tables.getCount():
            rows = tables.getByIndex(0).getRows()
            if rows.getCount() > 2:
                rows.insertByIndex(1, 1)
                tables.getByIndex(0).getCellByName("A2").setString("LO row")
                rows.removeByIndex(rows.getCount() - 1, 1)
        doc.storeToURL(uno.systemPathToFileUrl(str(out.resolve())), (prop("FilterName", "MS Word 2007 XML"),))
        doc.close(True)
        with contextlib.suppress(Exception):
            desktop.terminate()
        office.wait(timeout=30)
    finally:
        if office.poll() is None:
            os.killpg(office.pid, 9)  # the group this function started, only that
        shutil.rmtree(profile, ignore_errors=True)
    return ["recorded"]


WRITERS: dict[str, Callable[[Path, Path], list[str]]] = {
    "docx-redline": docx_redline,
    "adeu": adeu,
    "docx-editor": docx_editor,
    "python-redlines": python_redlines,
    "libreoffice": libreoffice,
}


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] not in WRITERS:
        print(f"usage: peers.py {{{'|'.join(WRITERS)}}} IN.docx OUT.docx", file=sys.stderr)
        return 2
    done = WRITERS[argv[0]](Path(argv[1]), Path(argv[2]))
    print(argv[2], done)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
