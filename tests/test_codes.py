"""The one catalogue of codes, and the boundaries that turn every failure into one of them.

Every code the project can emit is a :class:`shared_schema.Code` -- by construction where the
types say so (``Refusal.code``, ``ToolError.code``), and checked here over the source for every
place a code is written down -- every code has a meaning, and a bug of ours is
``internal_error`` (with its traceback) at the command line and in the tools, never a code
about the user's file.
"""

from __future__ import annotations

import ast
import json
import pickle
import struct
import zlib
from pathlib import Path

import pytest
from pydantic import ValidationError

import redline.tools
import redline.tools.session
import redline_cli.redline
from redline.errors import Refused, Where, boundary, map_foreign
from redline.exits import EXIT_INTERNAL, EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED, EXIT_USAGE
from redline.opc.package import CODES, Package, PackageError
from redline.read.load import load_view
from redline.read.view import DocumentView
from redline.tools import DocumentTools, ToolError
from redline.tools.locks import LockError
from redline.write.arguments import ArgumentError
from redline_cli.common import UsageError
from redline_cli.redline import main
from redline_cli.summarize import main as summarize_main
from redline_review.job import FAILED, MISSING_DOCUMENT, MISSING_REPLY
from shared_schema import (
    MEANINGS,
    BatchOutcome,
    CallOutcome,
    ChangeStatus,
    Code,
    EditStatus,
    OurOutcome,
    PointStatus,
    QuoteStatus,
    Refusal,
    ToolStatus,
)
from testing.docbuild import docx

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    p
    for pkg in ("shared_schema", "redline", "summarize", "redline_review", "redline_cli")
    for p in (ROOT / pkg).rglob("*.py")
    if p != ROOT / "shared_schema" / "codes.py"  # the catalogue itself
)
# The callables whose first argument (or ``code=``) is a code, and the keys that hold one.
CODE_TAKERS = {"Refusal", "Refused", "ToolError", "LockError", "PackageError", "JobResult"}
CODE_KEYS = {"code", "error_code"}
# Module-level names that hold a code (a batch job's refusal, beside its outcome).
CODE_NAMES = {"MISSING_REPLY", "MISSING_DOCUMENT"}


def test_every_code_has_a_meaning_and_the_meanings_only_codes() -> None:
    assert set(MEANINGS) == set(Code)
    for code, meaning in MEANINGS.items():
        assert meaning.strip() and meaning == meaning.strip(), code
    assert len({c.value for c in Code}) == len(Code)  # no value twice


def test_every_refusal_status_is_a_code_of_the_same_name() -> None:
    for status in EditStatus:
        if status.ok:
            assert status.code is None
        else:
            assert status.code is Code(status.value)
    assert Code(QuoteStatus.NOT_FOUND.value) is Code.NOT_FOUND


def test_the_package_codes_are_in_the_catalogue_with_the_same_meanings() -> None:
    assert set(CODES) <= set(Code)
    for code, meaning in CODES.items():
        assert MEANINGS[Code(code)] == meaning, code


def test_the_batch_codes_are_in_the_catalogue() -> None:
    assert {MISSING_REPLY, MISSING_DOCUMENT} <= set(Code)
    assert FAILED is BatchOutcome.FAILED and FAILED.value == Code.FAILED.value  # the outcome, and its code


def test_a_refusal_holds_a_code_and_its_json_the_string() -> None:
    refusal = Refusal(code="not_found", message="m")
    assert refusal.code is Code.NOT_FOUND
    dumped = refusal.model_dump(mode="json")
    assert dumped["code"] == "not_found" and type(dumped["code"]) is str
    assert json.loads(refusal.model_dump_json())["code"] == "not_found"
    assert json.dumps({"code": Code.STALE}) == '{"code": "stale"}'
    with pytest.raises(ValidationError):
        Refusal(code="no_such_code", message="m")


def test_a_raised_refusal_becomes_a_value_one_way() -> None:
    refusal = Refusal.from_error(PackageError("corrupt_zip", "The file is damaged.", "word/document.xml"))
    assert refusal.code is Code.CORRUPT_ZIP and refusal.message == "The file is damaged."
    assert refusal.hint is None
    tool = Refusal.from_error(ToolError(Code.OUTSIDE_ROOT, "Outside.", "Stay inside."), hint="h")
    assert tool.code is Code.OUTSIDE_ROOT and tool.hint == "h"
    usage = Refusal.from_error(UsageError("--jobs must be at least 1"))
    assert usage.code is Code.USAGE and usage.message == "--jobs must be at least 1"
    with pytest.raises(ValueError):
        Refusal.from_error(PackageError("not_a_code", "m"))


def _refusals() -> list[Refused]:
    return [
        PackageError(Code.TOO_LARGE, "Too large.", "word/document.xml"),
        ToolError(Code.SECTION_NOT_FOUND, "No section.", "Read the outline.", candidates=[{"cite": "4.2"}]),
        LockError(Code.BUSY, "Busy.", "Wait."),
        ArgumentError("the author must not be empty", "author"),
        UsageError("--jobs must be at least 1"),
    ]


def test_every_refusal_is_one_family_carrying_a_code() -> None:
    for error in _refusals():
        assert isinstance(error, Refused) and isinstance(error.code, Code), error
        assert str(error) == error.message
        refusal = error.refusal
        assert (refusal.code, refusal.message, refusal.hint) == (error.code, error.message, error.hint)
        again = pickle.loads(pickle.dumps(error))  # a refusal crosses a process pool whole
        assert type(again) is type(error) and again.__dict__ == error.__dict__ and str(again) == str(error)
    package, tool, lock, argument, usage = _refusals()
    assert isinstance(tool, ToolError)
    assert package.part == "word/document.xml" and package.hint is None
    assert tool.to_dict() == {
        "code": "section_not_found",
        "message": "No section.",
        "hint": "Read the outline.",
        "candidates": [{"cite": "4.2"}],
    }
    assert lock.hint == "Wait."
    assert isinstance(argument, ArgumentError) and isinstance(argument, ValueError)
    assert (
        argument.code is Code.INVALID_ARGUMENTS
        and argument.field == "author"
        and argument.message == "the author must not be empty"
    )
    assert usage.code is Code.USAGE


def test_one_table_maps_foreign_exceptions_by_boundary() -> None:
    from lxml import etree

    def code(exc: BaseException, where: Where) -> Code | None:
        found = map_foreign(exc, where)
        return None if found is None else found.code

    decoding = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    # package, command, tool, job, write
    expected = [Code.CORRUPT_ZIP, Code.IO_ERROR, Code.INVALID_ARGUMENTS, None, Code.IO_ERROR]
    assert [code(decoding, w) for w in Where] == expected
    os_errors = (
        FileNotFoundError(2, "No such file", "a.docx"),
        PermissionError(13, "Denied"),
        IsADirectoryError(21, "Is a directory"),
        OSError(28, "No space left on device"),
    )
    for os_error in os_errors:
        assert {code(os_error, w) for w in Where} == {Code.IO_ERROR}, os_error
    worded = map_foreign(os_errors[0], Where.COMMAND)
    assert worded is not None and worded.message == "Input or output failed 'a.docx': No such file."
    try:
        etree.fromstring("<a>")
    except etree.XMLSyntaxError as exc:
        syntax = exc
    assert [code(syntax, w) for w in Where] == [Code.MALFORMED_XML, None, None, None, None]
    for package_only in (zlib.error("bad"), struct.error("bad"), EOFError()):
        assert code(package_only, Where.PACKAGE) is not None and code(package_only, Where.COMMAND) is None
    # a bug is never a refusal, wherever it is met
    for bug in (KeyError("k"), RuntimeError("r"), RecursionError(), MemoryError(), AssertionError()):
        assert [code(bug, w) for w in Where] == [None] * len(Where), bug
    # a refusal is its own
    assert code(LockError(Code.BUSY, "Busy.", "Wait."), Where.TOOL) is Code.BUSY


def test_the_package_boundary_lets_every_refusal_pass() -> None:
    lock = LockError(Code.BUSY, "Busy.", "Wait.")
    with pytest.raises(LockError), boundary("word/document.xml"):
        raise lock
    with pytest.raises(PackageError) as caught, boundary("word/document.xml"):
        raise zlib.error("bad")
    assert caught.value.code is Code.CORRUPT_MEMBER and caught.value.part == "word/document.xml"
    with pytest.raises(RuntimeError), boundary(None):
        raise RuntimeError("a bug of ours")


def _code_sites() -> list[tuple[str, int, ast.expr]]:
    """Every expression the product's source writes where a code goes: the first argument or
    ``code=`` of the callables that take one, the value of a ``"code"`` key, and the names that
    hold one (both branches of a conditional)."""
    found: list[tuple[str, int, ast.expr]] = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            values: list[ast.expr] = []
            if isinstance(node, ast.Call):
                func = node.func
                name = getattr(func, "id", None) or getattr(func, "attr", "")
                if name in CODE_TAKERS:
                    if node.args and name != "JobResult":  # (a JobResult's code is its keyword)
                        values.append(node.args[0])
                    values += [k.value for k in node.keywords if k.arg == "code"]
                owner = getattr(func, "value", None)
                if name == "refused" and isinstance(owner, ast.Name) and owner.id == "JobResult":
                    values.append(node.args[1])  # JobResult.refused(name, code, message)
            elif isinstance(node, ast.Dict):
                values += [
                    v for k, v in zip(node.keys, node.values, strict=True)
                    if isinstance(k, ast.Constant) and k.value in CODE_KEYS
                ]  # fmt: skip
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id in CODE_NAMES for t in node.targets
            ):
                values.append(node.value)
            while values:
                value = values.pop()
                if isinstance(value, ast.IfExp):
                    values += [value.body, value.orelse]
                else:
                    found.append((where, value.lineno, value))
    return found


def _literal_codes() -> list[tuple[str, int, str]]:
    """The codes of :func:`_code_sites` written as strings."""
    return [
        (where, line, value.value)
        for where, line, value in _code_sites()
        if isinstance(value, ast.Constant) and isinstance(value.value, str)
    ]


def test_every_code_written_in_the_source_is_in_the_catalogue() -> None:
    sites = _code_sites()
    assert len(sites) > 100  # (the walk does find them: Code.X, strings, names)
    spelled = {v.attr for _, _, v in sites if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name)
               and v.value.id == "Code"}  # fmt: skip
    assert spelled <= set(Code.__members__)
    literal = _literal_codes()
    unknown = [(where, line, code) for where, line, code in literal if code not in set(Code)]
    assert unknown == []


def test_outside_the_package_layer_codes_are_written_as_codes_not_strings() -> None:
    """Codes are spelled ``Code.X``, so that a typo is an AttributeError and a rename a search."""
    assert _literal_codes() == []


STATUS_WORDS = {"status", "outcome"}


def _status_word(node: ast.expr) -> bool:
    """``x.status``, ``x["status"]``, ``x.get("status")``, or the name ``status`` (or ``outcome``)."""
    if isinstance(node, ast.Attribute):
        return node.attr in STATUS_WORDS
    if isinstance(node, ast.Name):
        return node.id in STATUS_WORDS
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in STATUS_WORDS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return (
            bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value in STATUS_WORDS
        )
    return False


def _literal_statuses() -> list[tuple[str, int, str]]:
    """Statuses written as strings: a ``"status"``/``"outcome"`` key's value, a status compared
    with or assigned a string, a string among the choices a status is tested against."""
    found: list[tuple[str, int, str]] = []
    for path in SOURCES:
        where = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            values: list[ast.expr] = []
            if isinstance(node, ast.Dict):
                values += [
                    v for k, v in zip(node.keys, node.values, strict=True)
                    if isinstance(k, ast.Constant) and k.value in STATUS_WORDS
                ]  # fmt: skip
            elif isinstance(node, ast.Compare) and _status_word(node.left):
                for right in node.comparators:
                    values += (
                        list(right.elts) if isinstance(right, ast.Tuple | ast.Set | ast.List) else [right]
                    )
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if node.value is not None and any(_status_word(t) for t in targets):
                    values.append(node.value)
            while values:
                value = values.pop()
                if isinstance(value, ast.IfExp):
                    values += [value.body, value.orelse]
                elif isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found.append((where, value.lineno, value.value))
    return found


def test_statuses_are_written_as_their_enums_not_strings() -> None:
    """Every status is a member of one of the catalogue's status enums (EditStatus, QuoteStatus,
    ChangeStatus, ToolStatus, CallOutcome, BatchOutcome, PointStatus), spelled as one: a typo is then an
    AttributeError, and a rename a search."""
    assert _literal_statuses() == []


def test_the_status_vocabularies() -> None:
    assert [s.value for s in ChangeStatus] == ["written", "unsupported"]
    assert [s.value for s in ToolStatus] == ["applied", "partial", "unapplied", "stale"]
    assert [s.value for s in CallOutcome] == ["ok", "refused"]
    assert [s.value for s in OurOutcome] == ["accepted", "rejected", "pending", "modified"]
    batch = ["applied", "compared", "reconciled", "unapplied", "refused", "failed"]
    assert [s.value for s in BatchOutcome] == batch
    # "unsupported" in a summary's JSON means a point without a quote, not Code.UNSUPPORTED
    assert [s.value for s in PointStatus] == ["verified", "unverified", "unsupported"]
    assert PointStatus.UNQUOTED.value == "unsupported" and PointStatus("unsupported") is PointStatus.UNQUOTED
    apply_edits = {d["name"]: d for d in redline.tools.tool_definitions()}["apply_edits"]
    assert apply_edits["outputSchema"]["properties"]["status"]["enum"] == list(ToolStatus)
    # every status that is not a success is a code too, or stands beside one
    assert BatchOutcome.FAILED.value == Code.FAILED.value
    assert ToolStatus.STALE.value == Code.STALE.value


def test_the_exit_codes() -> None:
    assert (EXIT_OK, EXIT_UNAPPLIED, EXIT_USAGE, EXIT_REFUSED) == (0, 1, 2, 3)
    assert EXIT_INTERNAL not in (0, 1, 2, 3)
    from redline_cli import common

    assert (common.EXIT_OK, common.EXIT_UNAPPLIED, common.EXIT_USAGE, common.EXIT_REFUSED) == (0, 1, 2, 3)


# ---------------------------------------------------------------------------------------------
# The one load step


def test_the_load_step_gives_the_view_or_the_refusal(tmp_path: Path) -> None:
    data = docx("One clause.", "Another clause.")
    loaded = load_view(data)
    assert not isinstance(loaded, Refusal)
    package, view = loaded
    assert isinstance(package, Package) and isinstance(view, DocumentView)
    assert view.text == "One clause.\nAnother clause."
    streamed = load_view(data, stream=True)
    assert not isinstance(streamed, Refusal) and streamed[1].text == view.text
    (tmp_path / "a.docx").write_bytes(data)
    opened = load_view(tmp_path / "a.docx")
    assert not isinstance(opened, Refusal) and opened[1].revision == view.revision
    refused = load_view(b"not a zip at all")
    assert isinstance(refused, Refusal) and refused.code is Code.NOT_A_ZIP
    missing = load_view(tmp_path / "missing.docx")
    assert isinstance(missing, Refusal) and missing.code is Code.IO_ERROR


# ---------------------------------------------------------------------------------------------
# The command line's boundary


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    doc = tmp_path / "a.docx"
    doc.write_bytes(docx("The tenant shall pay rent monthly."))
    reply = tmp_path / "a.reply.json"
    reply.write_text(json.dumps([{"anchor": "monthly", "replacement": "quarterly"}]))
    return doc, reply


def _bug(*_args: object, **_kwargs: object) -> object:
    raise KeyError("a bug of ours")


def test_a_bug_at_the_command_line_is_internal_error_with_its_traceback(
    files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, reply = files
    monkeypatch.setattr(redline_cli.redline, "apply_reply", _bug)
    assert main(["apply", str(doc), str(reply), "--dry-run"]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and "KeyError: 'a bug of ours'" in err
    assert err.rstrip().endswith("[internal_error]") and "refused" not in err


def test_a_foreign_failure_at_the_command_line_is_a_code(
    files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, reply = files

    def disk_full(*_args: object, **_kwargs: object) -> object:
        raise OSError(28, "No space left on device", "/somewhere/out.docx")

    monkeypatch.setattr(redline_cli.redline, "apply_reply", disk_full)
    assert main(["apply", str(doc), str(reply), "--dry-run"]) == EXIT_REFUSED
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.startswith("redline apply: refused: ") and err.rstrip().endswith("[io_error]")
    assert "No space left on device" in err

    def undecodable(*_args: object, **_kwargs: object) -> object:
        raise UnicodeEncodeError("ascii", "\u201c", 0, 1, "ordinal not in range(128)")

    monkeypatch.setattr(redline_cli.redline, "apply_reply", undecodable)
    assert main(["apply", str(doc), str(reply), "--dry-run"]) == EXIT_REFUSED
    assert capsys.readouterr().err.rstrip().endswith("[io_error]")


def test_summarize_shares_the_boundary(
    files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import redline_cli.summarize

    doc, _ = files
    summary = doc.with_name("a.summary.json")
    summary.write_text(json.dumps({"summary": "s", "points": [{"title": "t", "quotes": ["pay rent"]}]}))
    assert summarize_main(["check", str(doc), str(summary)]) == EXIT_OK
    monkeypatch.setattr(redline_cli.summarize, "check_reply", _bug)
    assert summarize_main(["check", str(doc), str(summary)]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and err.rstrip().endswith("[internal_error]")
    assert summarize_main(["check", str(doc.with_name("none.docx")), str(summary)]) == EXIT_REFUSED
    assert capsys.readouterr().err.rstrip().endswith("[io_error]")


# ---------------------------------------------------------------------------------------------
# The tools' boundary


def test_a_bug_in_a_tool_is_internal_error_with_its_traceback_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.docx").write_bytes(docx("The tenant shall pay rent monthly."))
    log = tmp_path / "calls.jsonl"
    tools = DocumentTools(tmp_path, log, lock_dir=tmp_path / "locks")
    monkeypatch.setattr(redline.tools.session, "load_view", _bug)
    result = tools.read_region("a.docx")
    assert result["error"]["code"] == "internal_error"
    assert "bug in redline" in result["error"]["hint"]
    assert "Traceback" not in json.dumps(result)  # the caller gets the code, not our insides
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["error_code"] == "internal_error"
    assert "Traceback" in entry["traceback"] and "KeyError: 'a bug of ours'" in entry["traceback"]
    assert "KeyError: 'a bug of ours'" in capsys.readouterr().err


def test_a_foreign_failure_in_a_tool_is_a_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.docx").write_bytes(docx("The tenant shall pay rent monthly."))
    tools = DocumentTools(tmp_path, lock_dir=tmp_path / "locks")

    def unreadable(*_args: object, **_kwargs: object) -> object:
        raise PermissionError(13, "Permission denied", str(tmp_path / "a.docx"))

    monkeypatch.setattr(redline.tools.session, "load_view", unreadable)
    result = tools.read_region("a.docx")
    assert result["error"]["code"] == "io_error" and "Permission denied" in result["error"]["message"]
    monkeypatch.undo()
    result = tools.read_region("\ud800.docx")  # no file name can hold a lone surrogate
    assert result["error"]["code"] in ("invalid_arguments", "not_found_file")
    assert tools.read_region("a.docx", paragraphs="9-1")["error"]["code"] == "invalid_range"


def test_a_refused_document_in_a_tool_keeps_its_code(tmp_path: Path) -> None:
    (tmp_path / "bad.docx").write_bytes(b"plain text, not a package")
    tools = DocumentTools(tmp_path, lock_dir=tmp_path / "locks")
    result = tools.read_region("bad.docx")
    assert result["error"]["code"] == "not_a_zip"
    assert "check that `path` names a .docx file" in result["error"]["hint"]


def test_a_foreign_failure_in_a_batch_job_refuses_that_document_with_its_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import redline_review.job
    from redline.apply import ApplyOptions

    def full(*_args: object, **_kwargs: object) -> object:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(redline_review.job, "apply_reply", full)
    result = redline_review.job.run_document(docx("Text."), b"[]", None, ApplyOptions(), "lease")
    assert result.outcome is BatchOutcome.REFUSED and result.code is Code.IO_ERROR
    assert result.message == "Input or output failed: No space left on device. [io_error]"
    assert "Traceback" not in capsys.readouterr().err  # not a bug: no traceback


def test_an_argument_error_escaping_a_command_is_a_usage_error(
    files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, reply = files

    def bad_author(*_args: object, **_kwargs: object) -> object:
        raise ArgumentError("the author must not be empty", "author")

    monkeypatch.setattr(redline_cli.redline, "apply_reply", bad_author)
    assert main(["apply", str(doc), str(reply), "--dry-run"]) == EXIT_USAGE
    assert capsys.readouterr().err.strip() == "redline apply: --author: the author must not be empty"


def test_a_bug_in_a_batch_job_fails_that_document_with_its_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import redline_review.job
    from redline.apply import ApplyOptions

    monkeypatch.setattr(redline_review.job, "apply_reply", _bug)
    result = redline_review.job.run_document(docx("Text."), b"[]", None, ApplyOptions(), "lease")
    assert result.outcome == FAILED == "failed" and result.code is Code.FAILED
    assert result.exit_code == EXIT_REFUSED
    assert result.message == "internal error: KeyError: 'a bug of ours'"
    err = capsys.readouterr().err
    assert "lease.docx failed (internal_error)" in err and "Traceback" in err
