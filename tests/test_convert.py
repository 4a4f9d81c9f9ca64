"""Other formats in (issue 34): ``redline.opc.convert`` and the commands that take .doc/.rtf/.odt.

Three kinds of test:

* the counts of what a document holds (:func:`docx_marks`, :func:`odt_marks`,
  :func:`rtf_marks`) and :func:`losses`, on documents built here -- no LibreOffice;
* the process rules, with a fake ``soffice`` (a shell script named by ``REDLINE_SOFFICE``):
  the time limit kills the whole process group and leaves nothing running, a missing or
  failing LibreOffice is ``conversion_failed``, a hostile result still meets the loader's
  limits, the output-size limit holds, the input and the temporary folder are left as they
  must be, and the command lines' exit codes, warnings and usage errors;
* real LibreOffice (``slow``): generated documents with tracked changes, comments and moves
  round-tripped through each format, judged by redline's own reading and by pandoc, and the
  losses LibreOffice is known to cause (moves through .doc) reported.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import tempfile
import time
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redline.errors import PackageError
from redline.opc import convert
from redline.opc.convert import (
    CONVERTIBLE,
    Loss,
    Marks,
    docx_marks,
    from_docx,
    losses,
    odt_marks,
    rtf_marks,
    to_docx,
)
from redline.opc.package import Package
from redline_cli.redline import main
from shared_schema import Code
from testing.docbuild import B, CommentEnd, CommentStart, Del, Ins, MoveFrom, MoveTo, P, Raw, docx
from tests.oracles import pandoc_spaced
from tests.support import comment, read_back

DATE = 'w:date="2020-01-01T00:00:00Z"'


def _contract() -> bytes:
    """A small contract with every mark a conversion can lose: an insertion, a deletion, a
    move, a format change, two deletions of two authors side by side, and a comment."""
    return docx(
        P("1. The Tenant shall pay ", Ins("monthly ", author="Bob"), "rent of ", Del("ten", author="Bob"),
          " dollars."),
        P("2. Notices ", MoveFrom("shall be in writing and ", author="Bob"), "go to the Landlord."),
        P("3. The ", CommentStart(1), "Premises", CommentEnd(1), " are the fourth floor."),
        P("4. Repairs ", MoveTo("shall be in writing and ", author="Bob"), "are the Tenant's."),
        P("5. Term of ", Del("five", author="Bob"), Del(" long", author="Carol"), " years."),
        P("6. ", Raw(f'<w:r><w:rPr><w:b/><w:rPrChange w:id="77" w:author="Bob" {DATE}><w:rPr/>'
                     "</w:rPrChange></w:rPr><w:t>Governing</w:t></w:r>"), " law."),
        comments=comment(1, "Which floor?", author="Bob"),
    )  # fmt: skip


def _odt(content_body: str, *, mimetype: bytes = b"application/vnd.oasis.opendocument.text") -> bytes:
    """A minimal OpenDocument text: ``content_body`` inside ``office:text``."""
    content = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.2">'
        f"<office:body><office:text>{content_body}</office:text></office:body></office:document-content>"
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), mimetype)
        z.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
        z.writestr(
            "META-INF/manifest.xml",
            '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
            'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
            '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/'
            'vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" '
            'manifest:media-type="text/xml"/></manifest:manifest>',
        )
    return buf.getvalue()


def _region(rid: str, kind: str, author: str = "Bob", body: str = "") -> str:
    return (
        f'<text:changed-region text:id="{rid}"><text:{kind}><office:change-info>'
        f"<dc:creator>{author}</dc:creator><dc:date>2020-01-01T00:00:00</dc:date></office:change-info>"
        f"{body}</text:{kind}></text:changed-region>"
    )


ODT_TWO_DELETIONS = _odt(
    "<text:tracked-changes>"
    + _region("c1", "deletion", body="<text:p>one</text:p>")
    + _region("c2", "deletion", body="<text:p>two</text:p>")
    + _region("c3", "insertion")
    + "</text:tracked-changes>"
    '<text:p>Start <text:change text:change-id="c1"/><text:change text:change-id="c2"/> and '
    '<text:change-start text:change-id="c3"/>new<text:change-end text:change-id="c3"/> '
    '<office:annotation><dc:creator>Bob</dc:creator><text:p>Why?</text:p></office:annotation>end.</text:p>'
)


# --- the counts, without LibreOffice ------------------------------------------------------------


def test_a_docx_counts_each_change_as_a_reader_sees_it_and_its_comments() -> None:
    marks = docx_marks(Package.from_bytes(_contract()))
    # insertions: "monthly", the move's destination; deletions: "ten", the move's source, "five"
    # and " long" (two authors: two changes)
    assert marks == Marks(insertions=2, deletions=4, moves=1, formats=1, comments=1)


def test_a_docx_change_over_runs_and_a_paragraph_mark_is_one_change_and_ids_do_not_count() -> None:
    mark = f'<w:ins w:id="12" w:author="Bob" {DATE}/>'
    data = docx(
        P("One ", Ins("ins ", B("bold"), author="Bob", id=11), Ins(" more", author="Bob", id=13), mark=mark),
        P(Ins("second paragraph", author="Bob", id=14), " stays."),
        P("Adjacent ", Del("aaa ", author="Bob", id=15), Del("bbb", author="Bob", id=16), " end."),
    )
    marks = docx_marks(Package.from_bytes(data))
    assert (marks.insertions, marks.deletions) == (1, 1)


def test_a_deletion_whose_text_the_same_author_inserted_elsewhere_is_a_probable_move() -> None:
    data = docx(
        P("A ", Del("shall be in writing", author="Bob"), " b."),
        P("C ", Ins("shall be in writing", author="Bob"), " d."),
        P("E ", Del("short", author="Bob"), Ins("short", author="Bob")),  # under 10 characters
        P("F ", Del("another sentence here", author="Ann"), Ins("another sentence here", author="Bob")),
    )
    assert docx_marks(Package.from_bytes(data)).moved_pairs == 1


def test_an_odt_counts_its_changed_regions_annotations_and_move_bookmarks() -> None:
    body = (
        "<text:tracked-changes>"
        + _region("a", "insertion")
        + _region("b", "deletion", body="<text:p>x</text:p>")
        + _region("c", "format-change")
        + _region("d", "insertion")
        + "</text:tracked-changes>"
        '<text:p><text:bookmark-start text:name="__RefMoveTo__move1"/>x'
        '<text:bookmark-end text:name="__RefMoveTo__move1"/><text:bookmark text:name="__RefMoveFrom__move1"/>'
        '<text:bookmark text:name="__RefMoveFrom__move2"/><text:bookmark text:name="ordinary"/>'
        "<office:annotation><text:p>a</text:p></office:annotation>"
        "<office:annotation><text:p>b</text:p></office:annotation></text:p>"
    )
    assert odt_marks(_odt(body)) == Marks(insertions=2, deletions=1, moves=2, formats=1, comments=2)


def test_an_odt_that_is_no_text_document_or_no_odt_at_all_is_conversion_failed() -> None:
    with pytest.raises(PackageError) as spreadsheet:
        odt_marks(_odt("<text:p/>", mimetype=b"application/vnd.oasis.opendocument.spreadsheet"))
    assert spreadsheet.value.code is Code.CONVERSION_FAILED
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("other.xml", "<a/>")
    with pytest.raises(PackageError) as empty:
        odt_marks(buf.getvalue())
    assert empty.value.code is Code.CONVERSION_FAILED


def test_a_hostile_odt_is_refused_with_the_loaders_own_codes() -> None:
    buf = io.BytesIO()  # a content.xml with a DOCTYPE
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), b"application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>')
    with pytest.raises(PackageError) as dtd:
        odt_marks(buf.getvalue())
    assert dtd.value.code is Code.DTD_FORBIDDEN
    whole = _odt("<text:p/>")
    with pytest.raises(PackageError) as cut:
        odt_marks(whole[: len(whole) // 2])
    assert cut.value.code in (Code.TRUNCATED, Code.CORRUPT_ZIP)
    bomb = io.BytesIO()  # 4 MB of zeros in a few KB: over the loader's compression ratio
    with zipfile.ZipFile(bomb, "w") as z:
        z.writestr("content.xml", b"<x/>" + b" " * (4 * 1024 * 1024), zipfile.ZIP_DEFLATED)
    with pytest.raises(PackageError) as big:
        odt_marks(bomb.getvalue())
    assert big.value.code is Code.COMPRESSION_RATIO


RTF = (
    rb"{\rtf1\ansi{\fonttbl{\f0 Times \revised New;}}{\stylesheet{\s0 Normal;}}"
    rb"{\*\revtbl{Unknown;}{Bob;}{Carol;}}"
    rb"\pard Start {\revised\revauth1\revdttm100 inserted }{\revised\revauth1\revdttm100\b bold} plain "
    rb"{\deleted\revauthdel1\revdttmdel100 gone}{\deleted\revauthdel2\revdttmdel100  also}"
    rb" {\crauth1\crdate100\b formatted}{\pict\bin4 \revised}"
    rb"{\*\bkmkstart __RefMoveFrom__move1}{\*\bkmkend __RefMoveFrom__move1}"
    rb"{\*\atnid B}{\*\atnauthor Bob}\chatn{\*\annotation{\*\atnref 0}\revised not counted}"
    rb"\par}"
)


def test_an_rtf_counts_runs_of_one_author_and_date_as_one_change_and_skips_its_tables() -> None:
    assert rtf_marks(RTF) == Marks(insertions=1, deletions=2, moves=1, formats=1, comments=1)


def test_an_rtf_paragraph_mark_under_revised_joins_the_insertion_it_ends() -> None:
    data = rb"{\rtf1 A {\revised\revauth1\revdttm5 new\par more} B {\revised\revauth1\revdttm6 later}\par}"
    assert rtf_marks(data).insertions == 2


# a run: its change (None: plain text; else kind, author number, date number) and its text
_KEYS = st.sampled_from(
    [None, ("ins", 1, 100), ("ins", 2, 100), ("ins", 1, 200), ("del", 1, 100), ("del", 2, 100)]
)
_RUNS = st.lists(st.tuples(_KEYS, st.text("abc xyz", min_size=1, max_size=6), st.booleans()), max_size=14)


def _stretches(keys: list[object]) -> dict[str, int]:
    """The oracle: how many stretches of each kind a sequence of units' keys holds."""
    counts: dict[str, int] = {}
    last: object = None
    for key in keys:
        if isinstance(key, tuple) and key != last:
            counts[key[0]] = counts.get(key[0], 0) + 1
        last = key
    return counts


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_RUNS)
def test_rtf_changes_are_counted_as_stretches_of_one_author_and_date(
    runs: list[tuple[tuple[str, int, int] | None, str, bool]],
) -> None:
    body = []
    for key, text, grouped in runs:
        if key is None:
            body.append("{" + text + "}" if grouped else "\\plain " + text)
        elif key[0] == "ins":
            body.append(f"{{\\revised\\revauth{key[1]}\\revdttm{key[2]} {text}}}")
        else:
            body.append(f"{{\\deleted\\revauthdel{key[1]}\\revdttmdel{key[2]} {text}}}")
    data = ("{\\rtf1{\\fonttbl{\\f0 A;}}\\pard " + "".join(body) + "}").encode("latin-1")
    counts = _stretches([key for key, _, _ in runs])
    marks = rtf_marks(data)
    assert (marks.insertions, marks.deletions) == (counts.get("ins", 0), counts.get("del", 0))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_RUNS)
def test_docx_changes_are_counted_as_stretches_whatever_their_ids_and_paragraphs(
    runs: list[tuple[tuple[str, int, int] | None, str, bool]],
) -> None:
    paragraphs: list[list[object]] = [[]]
    units: list[object] = []
    for key, text, new_paragraph in runs:
        if new_paragraph and paragraphs[-1]:
            paragraphs.append([])
            units.append(None)  # an unmarked paragraph mark ends a stretch
        author = f"A{key[1]}" if key else ""
        item: object = (
            text if key is None else Ins(text, author=author) if key[0] == "ins" else Del(text, author=author)
        )
        paragraphs[-1].append(item)
        units.append(None if key is None else key[:2])
    marks = docx_marks(Package.from_bytes(docx(*(P(*items) for items in paragraphs))))
    counts = _stretches(units)
    assert (marks.insertions, marks.deletions) == (counts.get("ins", 0), counts.get("del", 0))


def test_losses_are_the_kinds_the_docx_holds_fewer_of_never_more() -> None:
    before = Marks(insertions=3, deletions=4, moves=1, formats=1, comments=2)
    after = Marks(insertions=3, deletions=3, moves=0, formats=2, comments=1)
    found = {x.what: x for x in losses(before, after, ".odt")}
    assert set(found) == {"tracked moves", "tracked deletions", "comments"}
    assert found["tracked moves"].count == 1 and found["comments"].count == 1
    assert "OpenDocument" in found["comments"].message
    assert found["tracked deletions"].to_warning() == {
        "code": "lossy_conversion",
        "message": found["tracked deletions"].message,
    }
    assert losses(before, before, ".rtf") == []
    assert losses(Marks(), Marks(insertions=5, comments=1), ".rtf") == []


def test_a_doc_reports_probable_moves_only_a_doc_cannot_carry() -> None:
    after = Marks(insertions=1, deletions=1, moved_pairs=1)
    assert [x.what for x in losses(after, after, ".doc")] == ["tracked moves"]
    assert losses(after, after, ".odt") == []  # (.odt and .rtf keep moves: no guessing there)


# --- the process, with a fake soffice -------------------------------------------------------------

FAKE = """#!/bin/sh
# a stand-in for soffice: FAKE_MODE says what it does; it writes input.<ext> to --outdir
[ -n "$FAKE_ARGS" ] && printf '%s\\n' "$*" >> "$FAKE_ARGS"
outdir=""; target=""; input=""
while [ $# -gt 0 ]; do
  case "$1" in
    --outdir) outdir="$2"; shift;;
    --convert-to) target="$2"; shift;;
    *) input="$1";;
  esac
  shift
done
out="$outdir/input.${target%%:*}"
case "$FAKE_MODE" in
  sleep) sleep 600 & echo "$$ $!" > "$FAKE_PIDS"; wait;;
  nothing) echo "Error: source file could not be loaded";;
  fail) echo "crashed"; exit 9;;
  big) head -c 5000 /dev/zero > "$out";;
  copy) cp "$FAKE_OUTPUT" "$out";;
  touch) echo changed >> "$input"; cp "$FAKE_OUTPUT" "$out";;
esac
"""


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake soffice named by REDLINE_SOFFICE; its output (mode ``copy``) is ``FAKE_OUTPUT``,
    by default the contract; the temporary folders go under ``tmp_path/tmp``."""
    script = tmp_path / "fake-soffice"
    script.write_text(FAKE, encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    output = tmp_path / "fake-output.docx"
    output.write_bytes(_contract())
    monkeypatch.setenv("REDLINE_SOFFICE", str(script))
    monkeypatch.setenv("FAKE_MODE", "copy")
    monkeypatch.setenv("FAKE_OUTPUT", str(output))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    return script


def _gone(pid: int) -> bool:
    """The process ``pid`` no longer runs (no such process, or a zombie nobody reaped yet)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return fields[0] in ("Z", "X")


def _dies(pid: int, bound: float = 30.0) -> bool:
    """The process ``pid`` is gone, or goes within ``bound`` seconds (a SIGKILL sent to a
    process is delivered when it next runs: on a busy machine, not at once)."""
    end = time.monotonic() + bound
    while not _gone(pid):
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def test_an_overrun_kills_the_whole_process_group_and_leaves_nothing_behind(
    fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "sleep")
    pids = tmp_path / "pids"
    monkeypatch.setenv("FAKE_PIDS", str(pids))
    source = tmp_path / "in.odt"
    source.write_bytes(ODT_TWO_DELETIONS)
    with pytest.raises(PackageError) as exc:
        to_docx(source, timeout=1.0)
    assert exc.value.code is Code.CONVERSION_FAILED
    assert "within 1 seconds" in exc.value.message
    shell, child = map(int, pids.read_text().split())
    assert _gone(shell)  # reaped by the converter
    assert _dies(child)  # its group killed: the shell's child dies too
    assert list((tmp_path / "tmp").iterdir()) == []  # the work folder removed


def test_no_libreoffice_is_conversion_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "in.rtf"
    source.write_bytes(RTF)
    monkeypatch.setenv("REDLINE_SOFFICE", str(tmp_path / "no-such-soffice"))
    with pytest.raises(PackageError) as named:
        to_docx(source)
    assert named.value.code is Code.CONVERSION_FAILED and "REDLINE_SOFFICE" in named.value.message
    monkeypatch.delenv("REDLINE_SOFFICE")
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH
    with pytest.raises(PackageError) as unnamed:
        to_docx(source)
    assert unnamed.value.code is Code.CONVERSION_FAILED
    with pytest.raises(PackageError) as back:
        from_docx(_contract(), ".odt")
    assert back.value.code is Code.CONVERSION_FAILED


@pytest.mark.parametrize("mode", ["nothing", "fail"])
def test_a_libreoffice_that_writes_nothing_or_fails_is_conversion_failed(
    fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("FAKE_MODE", mode)
    source = tmp_path / "in.rtf"
    source.write_bytes(RTF)
    with pytest.raises(PackageError) as exc:
        to_docx(source)
    assert exc.value.code is Code.CONVERSION_FAILED
    said = "could not be loaded" if mode == "nothing" else "status 9"
    assert said in exc.value.message


def test_an_output_over_the_size_limit_is_stopped_by_the_file_size_limit(
    fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "big")
    monkeypatch.setattr(convert, "MAX_OUTPUT_BYTES", 1000)
    source = tmp_path / "in.rtf"
    source.write_bytes(RTF)
    with pytest.raises(PackageError) as exc:
        to_docx(source)
    assert exc.value.code is Code.CONVERSION_FAILED and "size limit" in exc.value.message


def test_a_hostile_conversion_result_meets_the_loaders_limits(
    fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(_contract())) as src, zipfile.ZipFile(buf, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "word/document.xml":
                data = data.replace(b"<w:document", b'<!DOCTYPE w [<!ENTITY e "x">]><w:document', 1)
            dst.writestr(info, data)
    (tmp_path / "fake-output.docx").write_bytes(buf.getvalue())
    source = tmp_path / "in.rtf"
    source.write_bytes(RTF)
    with pytest.raises(PackageError) as exc:
        to_docx(source)
    assert exc.value.code is Code.DTD_FORBIDDEN


def test_the_input_is_never_touched_and_each_run_has_a_profile_of_its_own(
    fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "touch")  # the fake writes to the file it is given
    args = tmp_path / "args"
    monkeypatch.setenv("FAKE_ARGS", str(args))
    source = tmp_path / "in.odt"
    source.write_bytes(ODT_TWO_DELETIONS)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    to_docx(source)
    to_docx(source)
    assert hashlib.sha256(source.read_bytes()).hexdigest() == digest
    lines = args.read_text().splitlines()
    profiles = [w for line in lines for w in line.split() if w.startswith("-env:UserInstallation=")]
    assert len(profiles) == 2 and profiles[0] != profiles[1]
    assert all(f"--infilter={'writer8'}" in line for line in lines)
    assert list((tmp_path / "tmp").iterdir()) == []


def test_what_the_fake_conversion_lost_is_told(fake: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.odt"
    source.write_bytes(ODT_TWO_DELETIONS)  # 2 deletions, 1 insertion, 1 comment; the docx: more
    data, lost = to_docx(source)
    assert data == (tmp_path / "fake-output.docx").read_bytes() and lost == []
    (tmp_path / "fake-output.docx").write_bytes(docx(P("Start and ", Ins("new", author="Bob"), " end.")))
    _, lost = to_docx(source)
    assert {(x.what, x.count) for x in lost} == {("tracked deletions", 2), ("comments", 1)}


@pytest.mark.parametrize(
    ("name", "data", "code"),
    [
        ("plain.doc", b"just some text, not a Word file", Code.CONVERSION_FAILED),
        ("plain.rtf", b"{\\rt not rtf", Code.CONVERSION_FAILED),
        ("plain.odt", b"%PDF-1.7 ...", Code.CONVERSION_FAILED),
        ("empty.doc", b"", Code.EMPTY_FILE),
    ],
)
def test_a_file_that_is_not_its_suffixs_format_is_refused_before_libreoffice_runs(
    fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, data: bytes, code: Code
) -> None:
    args = tmp_path / "args"
    monkeypatch.setenv("FAKE_ARGS", str(args))
    source = tmp_path / name
    source.write_bytes(data)
    with pytest.raises(PackageError) as exc:
        to_docx(source)
    assert exc.value.code is code
    assert not args.exists()  # LibreOffice never ran


def test_a_doc_holding_rtf_is_read_as_rtf(
    fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = tmp_path / "args"
    monkeypatch.setenv("FAKE_ARGS", str(args))
    source = tmp_path / "saved-as.doc"
    source.write_bytes(RTF)
    to_docx(source)
    assert "--infilter=Rich Text Format" in args.read_text()


def test_convertible_suffixes_and_a_suffix_outside_them_is_a_bug_of_the_caller(tmp_path: Path) -> None:
    assert frozenset({".doc", ".rtf", ".odt"}) == CONVERTIBLE
    with pytest.raises(ValueError):
        to_docx(tmp_path / "x.docx")
    with pytest.raises(ValueError):
        from_docx(_contract(), ".pdf")


# --- the command lines, with the fake -------------------------------------------------------------


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _lossy(tmp_path: Path) -> Path:
    """An .odt whose fake conversion loses two deletions and a comment."""
    (tmp_path / "fake-output.docx").write_bytes(
        docx(P("1. The Tenant shall pay ", Ins("monthly", author="Bob"), " rent."))
    )
    source = tmp_path / "returned.odt"
    source.write_bytes(ODT_TWO_DELETIONS)
    return source


def test_view_json_of_an_odt_lists_what_the_conversion_lost(
    fake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _lossy(tmp_path)
    code, out, err = _run(["view", "--json", str(source)], capsys)
    assert code == 0
    shown = json.loads(out)
    assert {w["code"] for w in shown["warnings"]} == {"lossy_conversion"}
    assert len(shown["warnings"]) == 2 and "[lossy_conversion]" in err
    assert [r["kind"] for r in shown["revisions"]] == ["insert"]
    code, out, _ = _run(["view", str(source)], capsys)
    assert code == 0 and "The Tenant shall pay monthly rent." in out


def test_view_json_of_a_docx_has_no_warnings_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "c.docx"
    source.write_bytes(_contract())
    code, out, _ = _run(["view", "--json", str(source)], capsys)
    assert code == 0 and "warnings" not in json.loads(out)


def test_apply_to_an_odt_writes_a_docx_with_the_warnings_in_its_report(
    fake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _lossy(tmp_path)
    reply = tmp_path / "reply.json"
    reply.write_text(json.dumps([{"anchor": "rent", "replacement": "base rent"}]), encoding="utf-8")
    report = tmp_path / "r.json"
    code, _, err = _run(["apply", str(source), str(reply), "--report", str(report)], capsys)
    assert code == 0, err
    out = tmp_path / "returned.redlined.docx"
    assert out.is_file()
    assert [r.kind.value for r in read_back(out.read_bytes()).revisions].count("insert") >= 2
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [w["code"] for w in data["warnings"]] == ["lossy_conversion", "lossy_conversion"]
    assert data["totals"]["applied"] == 1


def test_apply_and_compare_refuse_an_output_named_for_another_format(
    fake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _lossy(tmp_path)
    reply = tmp_path / "reply.json"
    reply.write_text("[]", encoding="utf-8")
    code, _, err = _run(["apply", str(source), str(reply), "-o", str(tmp_path / "out.odt")], capsys)
    assert code == 2 and "always a .docx" in err
    code, _, err = _run(["compare", str(source), str(source), "-o", str(tmp_path / "out.rtf")], capsys)
    assert code == 2
    assert not (tmp_path / "out.odt").exists() and not (tmp_path / "out.rtf").exists()


def test_a_failed_conversion_is_a_refused_document_with_nothing_written(
    fake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_MODE", "nothing")
    source = tmp_path / "in.rtf"
    source.write_bytes(RTF)
    reply = tmp_path / "reply.json"
    reply.write_text("[]", encoding="utf-8")
    report = tmp_path / "r.json"
    before = sorted(p.name for p in tmp_path.iterdir())
    code, _, err = _run(["apply", str(source), str(reply), "--report", str(report)], capsys)
    assert code == 3 and "[conversion_failed]" in err
    code, out, err = _run(["view", "--json", str(source)], capsys)
    assert code == 3 and out == "" and "[conversion_failed]" in err
    code, _, err = _run(["compare", str(tmp_path / "fake-output.docx"), str(source)], capsys)
    assert code == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert source.read_bytes() == RTF


def test_compare_with_a_converted_new_version_reports_its_losses(
    fake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "sent.docx"
    old.write_bytes(docx(P("1. The Tenant shall pay rent.")))
    new = _lossy(tmp_path)
    argv = ["compare", str(old), str(new), "-o", str(tmp_path / "c.docx"), "--report", "-"]
    code, out, err = _run(argv, capsys)
    assert code in (0, 1), err
    shown = json.loads(out)
    assert len(shown["warnings"]) == 2
    assert all(w["message"].startswith("The new document (returned.odt)") for w in shown["warnings"])
    argv = ["compare", str(old), str(old), "-o", str(tmp_path / "d.docx"), "--report", "-"]
    code, out, _ = _run(argv, capsys)
    assert "warnings" not in json.loads(out)


# --- real LibreOffice -------------------------------------------------------------------------------


def _our_processes(root: Path) -> list[int]:
    """Processes whose command line names a folder under ``root`` (our runs' profiles)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if str(root).encode() in cmdline and not _gone(int(entry.name)):
            found.append(int(entry.name))
    return found


@pytest.fixture
def own_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _texts(data: bytes) -> tuple[str, str]:
    return pandoc_spaced(data, "accept"), pandoc_spaced(data, "reject")


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".odt", ".rtf", ".doc"])
def test_a_contract_round_trips_through_each_format_with_its_marks(
    soffice: str, pandoc: str, own_tmp: Path, tmp_path: Path, suffix: str
) -> None:
    original = _contract()
    converted = from_docx(original, suffix)
    source = tmp_path / f"returned{suffix}"
    source.write_bytes(converted)
    back, lost = to_docx(source)
    assert _our_processes(own_tmp) == [] and list(own_tmp.iterdir()) == []
    # pandoc, a second reader: the text with every change accepted, and rejected, came through
    accepted, rejected = _texts(original)
    got_accepted, got_rejected = _texts(back)
    assert "monthly rent" in got_accepted and "ten dollars" in got_rejected
    assert "Notices go to the Landlord" in got_accepted
    if suffix != ".rtf":  # (LibreOffice's .rtf loses the format change, and its export leaks text)
        assert (got_accepted, got_rejected) == (accepted, rejected)
    marks = read_back(back)
    assert [c.text for c in marks.comments] == ["Which floor?"]
    kinds = [r.kind.value for r in marks.revisions]
    assert "insert" in kinds and "delete" in kinds
    moved = {"move_from", "move_to"} <= set(kinds)
    if suffix == ".doc":  # LibreOffice drops moves through .doc, and says so
        assert not moved
        assert [x.what for x in lost] == ["tracked moves"] and lost[0].count == 1
    else:
        assert moved and lost == []


@pytest.mark.slow
def test_an_rtf_whose_reading_merges_an_insertion_is_reported(soffice: str, tmp_path: Path) -> None:
    # LibreOffice's .rtf of a paragraph-mark insertion reads back with the text after an
    # insertion folded into it (two insertions become one)
    mark = f'<w:ins w:id="12" w:author="Bob" {DATE}/>'
    original = docx(
        P("One ", Ins("ins more", author="Bob", id=11), " tail.", mark=mark),
        P(Ins("second para inserted", author="Bob", id=13), " stays."),
    )
    source = tmp_path / "x.rtf"
    source.write_bytes(from_docx(original, ".rtf"))
    before = rtf_marks(source.read_bytes())
    back, lost = to_docx(source)
    after = docx_marks(Package.from_bytes(back))
    assert (after.insertions < before.insertions) == bool(lost)
    assert all(x.what == "tracked insertions" for x in lost)


@pytest.mark.slow
def test_adjacent_deletions_of_one_author_in_an_odt_merged_by_libreoffice_are_reported(
    soffice: str, tmp_path: Path
) -> None:
    source = tmp_path / "merged.odt"
    source.write_bytes(ODT_TWO_DELETIONS)
    back, lost = to_docx(source)
    after = docx_marks(Package.from_bytes(back))
    assert after.deletions < 2  # LibreOffice joined them
    assert ("tracked deletions", 2 - after.deletions) in {(x.what, x.count) for x in lost}
    assert after.comments == 1 and after.insertions == 1


@pytest.mark.slow
def test_a_real_overrun_leaves_no_libreoffice_running(soffice: str, own_tmp: Path, tmp_path: Path) -> None:
    source = tmp_path / "x.odt"
    source.write_bytes(ODT_TWO_DELETIONS)
    with pytest.raises(PackageError) as exc:
        to_docx(source, timeout=0.3)
    assert exc.value.code is Code.CONVERSION_FAILED
    assert _our_processes(own_tmp) == [] and list(own_tmp.iterdir()) == []


@pytest.mark.slow
def test_garbage_behind_a_doc_signature_is_conversion_failed(soffice: str, tmp_path: Path) -> None:
    source = tmp_path / "broken.doc"
    source.write_bytes(bytes.fromhex("D0CF11E0A1B11AE1") + os.urandom(4000))
    with pytest.raises(PackageError) as exc:
        to_docx(source)
    assert exc.value.code is Code.CONVERSION_FAILED


@pytest.mark.slow
def test_parallel_conversions_do_not_collide(soffice: str, tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    sources = []
    for i, suffix in enumerate([".odt", ".rtf"]):
        path = tmp_path / f"p{i}{suffix}"
        path.write_bytes(from_docx(_contract(), suffix))
        sources.append(path)
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(to_docx, sources))
    for data, _ in results:
        assert "monthly rent" in pandoc_spaced(data, "accept")


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".odt", ".rtf", ".doc"])
def test_the_commands_take_each_format(
    soffice: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    source = tmp_path / f"contract{suffix}"
    source.write_bytes(from_docx(_contract(), suffix))
    given = source.read_bytes()
    code, out, _ = _run(["view", "--json", str(source)], capsys)
    assert code == 0
    shown = json.loads(out)
    assert [c["text"] for c in shown["comments"]] == ["Which floor?"]
    assert [w["code"] for w in shown["warnings"]] == (["lossy_conversion"] if suffix == ".doc" else [])
    reply = tmp_path / "reply.json"
    reply.write_text(json.dumps([{"anchor": "fourth floor", "replacement": "fifth floor"}]), encoding="utf-8")
    out_path = tmp_path / "out.docx"
    code, _, err = _run(["apply", str(source), str(reply), "-o", str(out_path)], capsys)
    assert code == 0, err
    assert "fifth floor" in pandoc_spaced(out_path.read_bytes(), "accept")
    sent = tmp_path / "sent.docx"
    sent.write_bytes(_contract())
    argv = ["compare", str(sent), str(source), "-o", str(tmp_path / "c.docx"), "--report", "-"]
    code, out, err = _run(argv, capsys)
    assert code in (0, 1), err
    assert "warnings" in json.loads(out)
    assert source.read_bytes() == given


def test_loss_is_a_frozen_value() -> None:
    loss = Loss("comments", 1, "One comment is missing.")
    with pytest.raises(AttributeError):
        loss.count = 2  # type: ignore[misc]
