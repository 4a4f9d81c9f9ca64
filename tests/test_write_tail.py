"""What reaches a revision mark is checked, and redline compare reads its inputs as apply does.

Every author and date that reaches ``w:author`` / ``w:date`` is checked when the write's options
are made (:class:`redline.write.options.WriteOptions`), whoever made them; ``redline compare``
reads its inputs as ``apply`` does (a FIFO is refused, never waited on) and checks its
``--author`` and ``--date`` as ``apply`` does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from redline.apply import ApplyOptions
from redline.compare.diff import CompareOptions
from redline.write.options import MAX_AUTHOR_CHARS, ArgumentError, WriteOptions
from redline_cli.redline import main
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
