"""The one write tail (redline.write.publish): apply and compare write, splice and read back alike.

Every author and date that reaches ``w:author`` / ``w:date`` is checked when the write's options
are made (:class:`redline.write.options.WriteOptions`), whoever made them; ``redline compare``
reads its inputs as ``apply`` does (a FIFO is refused, never waited on) and checks its
``--author`` and ``--date`` as ``apply`` does; and a compare whose output the loader would
refuse is refused ``unloadable_output`` with nothing written, as an apply is.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.compare.diff import CompareOptions, compare
from redline.opc.package import Limits
from redline.write.options import MAX_AUTHOR_CHARS, ArgumentError, WriteOptions
from redline.write.publish import Written, write_and_check
from redline_cli.redline import main
from shared_schema import Code, Refusal
from testing.docbuild import P, docx

ROOT = Path(__file__).resolve().parent.parent
DATE = "2020-01-01T00:00:00Z"

OLD = docx(P("Rent is ten dollars a month."), P("The term is one year."))
NEW = docx(P("Rent is twelve dollars a month."), P("The term is two years."))

BAD_ARGUMENTS = {
    "impossible date": ["--date", "2026-02-30T25:61"],
    "not a date": ["--date", "yesterday"],
    "bidi author": ["--author", "A\u202eB"],
    "control-character author": ["--author", "A\x01B"],
    "over-long author": ["--author", "x" * 5000],
    "empty author": ["--author", "  "],
}


# -------------------------------------------------------------------------------------------
# The options check what reaches w:author / w:date


@pytest.mark.parametrize(
    "kwargs",
    [
        {"author": "A\u202eB"},
        {"author": "A\x01B"},
        {"author": "x" * (MAX_AUTHOR_CHARS + 1)},
        {"author": ""},
        {"date": "2026-02-30T25:61"},
        {"date": "2026-02-30T10:00:00Z"},
        {"date": "2026-01-31T24:00:00Z"},
    ],
    ids=["bidi", "control", "long", "empty", "garbled", "february-30", "hour-24"],
)
def test_every_options_that_reach_a_revision_mark_refuse_a_bad_author_or_date(kwargs: dict[str, Any]) -> None:
    makers: tuple[Any, ...] = (WriteOptions, ApplyOptions, CompareOptions)
    for make in makers:
        with pytest.raises(ArgumentError) as caught:
            make(**kwargs)
        assert caught.value.field == next(iter(kwargs))
        assert caught.value.message


def test_the_options_keep_what_they_checked() -> None:
    options = WriteOptions(author="  Counsel  ", date="2026-01-31")
    assert (options.author, options.date, options.stamp()) == ("Counsel", *(["2026-01-31T00:00:00Z"] * 2))
    assert CompareOptions(author=" Counsel ").write_options().author == "Counsel"
    assert CompareOptions().write_options().literal


def test_the_old_paths_of_the_options_and_the_checks_still_work() -> None:
    from redline.write import arguments, options, writer

    assert writer.WriteOptions is options.WriteOptions
    assert writer.WriteResult is options.WriteResult and writer.Comment is options.Comment
    assert arguments.check_author is options.check_author and arguments.ArgumentError is ArgumentError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import redline.arguments as old  # type: ignore[import-not-found]
    assert old.check_date is options.check_date


# -------------------------------------------------------------------------------------------
# redline compare on the command line: the inputs and the arguments


@pytest.mark.parametrize("case", sorted(BAD_ARGUMENTS))
def test_compare_refuses_a_bad_author_or_date_as_a_usage_error(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, out = tmp_path / "old.docx", tmp_path / "new.docx", tmp_path / "out.docx"
    old.write_bytes(OLD)
    new.write_bytes(NEW)
    assert main(["compare", str(old), str(new), "-o", str(out), *BAD_ARGUMENTS[case]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("redline compare: --") and ("--author" in err or "--date" in err)
    assert "Traceback" not in err and "internal error" not in err
    assert not out.exists()


def test_compare_checks_its_arguments_before_it_opens_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "old.docx"
    os.mkfifo(fifo)  # never opened: a bad date is a usage error first
    out = tmp_path / "out.docx"
    assert main(["compare", str(fifo), str(fifo), "-o", str(out), "--date", "2026-02-30T25:61"]) == 2
    assert "--date" in capsys.readouterr().err and not out.exists()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m redline ARGS`` from the repository, with a timeout: a hang fails the test."""
    return subprocess.run(
        [sys.executable, "-m", "redline", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("which", ["OLD", "NEW"])
def test_compare_refuses_a_fifo_as_an_input_without_waiting_for_a_writer(which: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.docx"
    os.mkfifo(fifo)
    other = tmp_path / "other.docx"
    other.write_bytes(OLD)
    out = tmp_path / "out.docx"
    inputs = (fifo, other) if which == "OLD" else (other, fifo)
    done = _cli("compare", str(inputs[0]), str(inputs[1]), "-o", str(out), "--date", DATE)
    assert done.returncode == 3, done.stderr
    assert "[not_regular_file]" in done.stderr and "FIFO" in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_compare_refuses_an_output_over_either_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = tmp_path / "old.docx", tmp_path / "new.docx"
    old.write_bytes(OLD)
    new.write_bytes(NEW)
    for target, what in ((old, "old document"), (new, "new document")):
        assert main(["compare", str(old), str(new), "-o", str(target)]) == 3
        assert f"The output path is the {what}" in capsys.readouterr().err
    report = tmp_path / "out.docx"
    assert main(["compare", str(old), str(new), "-o", str(report), "--report", str(report)]) == 3
    assert "The report path is the output document" in capsys.readouterr().err
    assert (old.read_bytes(), new.read_bytes()) == (OLD, NEW) and not report.exists()


# -------------------------------------------------------------------------------------------
# The output read back before it is returned


def _tags(data: bytes) -> int:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return sum(z.read(n).count(b"<") for n in z.namelist() if n.endswith((".xml", ".rels")))


def test_a_compare_whose_output_the_loader_would_refuse_is_refused_with_nothing_written() -> None:
    old = docx(*(P(f"Clause {i}: the tenant shall pay the rent on the first day.") for i in range(40)))
    new = docx(*(P(f"Article {i}; a landlord may collect fees at any later hour.") for i in range(40)))
    full = compare(old, new, CompareOptions(date=DATE))
    assert full.output is not None and full.report.error is None
    inputs = max(_tags(old), _tags(new))
    assert _tags(full.output) > inputs + 1  # every word changed: more tags than either input
    limits = Limits(max_markup=inputs + 1)  # both inputs load, the output would not
    outcome = compare(old, new, CompareOptions(date=DATE, limits=limits))
    error = outcome.report.error
    assert error is not None and error.code == Code.UNLOADABLE_OUTPUT
    assert "[too_complex]" in error.message and "tags" in error.message
    assert outcome.output is None and outcome.exit_code == 3


def _plant_a_defect(monkeypatch: Any) -> None:
    """Every write's main part cut in half on its way to the package's bytes: a defect only a
    read-back of the output finds."""
    from redline.write import splice

    changed = splice.Splice.changed

    def cut(self: splice.Splice, parts: Any) -> dict[str, bytes]:
        found = changed(self, parts)
        return {
            name: data[: len(data) // 2] if name == "word/document.xml" else data
            for name, data in found.items()
        }

    monkeypatch.setattr(splice.Splice, "changed", cut)


def test_a_defect_in_the_written_bytes_is_refused_by_the_read_back_for_apply_and_compare(
    monkeypatch: Any,
) -> None:
    reply = '{"edits": [{"anchor": "ten dollars", "replacement": "twelve dollars"}]}'
    assert apply_reply(OLD, reply, ApplyOptions(date=DATE)).output is not None
    assert compare(OLD, NEW, CompareOptions(date=DATE)).output is not None
    _plant_a_defect(monkeypatch)
    applied = apply_reply(OLD, reply, ApplyOptions(date=DATE))
    compared = compare(OLD, NEW, CompareOptions(date=DATE))
    for error, output in ((applied.report.error, applied.output), (compared.report.error, compared.output)):
        assert error is not None and error.code == Code.UNLOADABLE_OUTPUT
        assert output is None


def test_a_defect_planted_in_a_compare_refuses_it_on_the_command_line_with_nothing_written(
    tmp_path: Path, monkeypatch: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, out = tmp_path / "old.docx", tmp_path / "new.docx", tmp_path / "out.docx"
    old.write_bytes(OLD)
    new.write_bytes(NEW)
    _plant_a_defect(monkeypatch)
    assert main(["compare", str(old), str(new), "-o", str(out), "--date", DATE]) == 3
    err = capsys.readouterr().err
    assert "[unloadable_output]" in err and "Traceback" not in err
    assert not out.exists()


def test_write_and_check_answers_one_value() -> None:
    from redline.match.locate import Locator
    from redline.match.verify import verify
    from redline.read.load import load_view
    from shared_schema import parse_edit_reply

    loaded = load_view(OLD, trees=True)
    assert not isinstance(loaded, Refusal)
    package, view = loaded
    batch = parse_edit_reply('{"edits": [{"anchor": "one year", "replacement": "two years"}]}')
    assert batch is not None
    planned = verify(Locator(view), batch).planned
    done = write_and_check(package, view, planned, WriteOptions(date=DATE))
    assert isinstance(done, Written)
    assert "word/document.xml" in done.result.touched_parts and "word/document.xml" in done.changes.changed
    assert done.view.text == "Rent is ten dollars a month.\nThe term is two years."
    assert done.package.read("word/document.xml") == done.changes.changed["word/document.xml"]
