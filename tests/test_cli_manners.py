"""What every command does alike: the usage of the command an unknown flag was given to, the
same exit code for the same failure, a missing extra named rather than a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from redline_cli.redline import main as redline_main
from redline_cli.summarize import main as summarize_main


@pytest.mark.parametrize(
    ("main", "argv", "usage"),
    [
        (redline_main, ["apply", "a.docx", "b.json", "--bogus"], "usage: redline apply"),
        (redline_main, ["view", "a.docx", "--bogus"], "usage: redline view"),
        (redline_main, ["stats", "r.json", "--bogus"], "usage: redline stats"),
        (summarize_main, ["check", "a.docx", "b.json", "--bogus"], "usage: summarize check"),
    ],
)
def test_an_unknown_flag_shows_that_commands_usage(
    main: object, argv: list[str], usage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert callable(main) and main(argv) == 2
    err = capsys.readouterr().err
    assert usage in err and "unrecognized arguments: --bogus" in err


def test_a_missing_input_file_is_exit_3_in_every_command(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing")
    assert redline_main(["view", missing]) == 3
    assert redline_main(["apply", missing, missing]) == 3
    assert redline_main(["stats", missing]) == 3
    assert summarize_main(["check", missing, missing]) == 3


def test_redline_mcp_without_its_extra_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delitem(sys.modules, "redline.tools.mcp_server", raising=False)
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if not installed: importing it fails
    assert redline_main(["mcp"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'redline[mcp]'" in err and "Traceback" not in err


def test_apply_keeps_the_collector_off_until_its_outcome_is_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cyclic collector is off from the apply until the outcome is written and freed (its
    first pass would walk everything the outcome holds, just before freeing it), and on again
    when the command returns -- also when the command fails."""
    import gc
    import weakref

    import redline.opc.files as files
    import redline_cli.redline as cli

    samples = Path(__file__).resolve().parent.parent / "sample_contracts"
    seen: dict[str, object] = {}
    real_apply, real_write = cli.apply_reply, files.write_atomic

    def apply(*args: object, **kwargs: object) -> object:
        outcome = real_apply(*args, **kwargs)  # type: ignore[arg-type]
        seen["outcome"] = weakref.ref(outcome)
        return outcome

    def write(path: Path, data: bytes) -> None:
        seen["collector on while writing"] = gc.isenabled()
        real_write(path, data)

    monkeypatch.setattr(cli, "apply_reply", apply)
    monkeypatch.setattr(files, "write_atomic", write)
    assert gc.isenabled()
    out = tmp_path / "out.docx"
    doc, reply = samples / "commercial-lease.docx", samples / "commercial-lease.reply.md"
    assert redline_main(["apply", str(doc), str(reply), "-o", str(out)]) in (0, 1)
    assert seen["collector on while writing"] is False
    dropped = seen["outcome"]
    assert callable(dropped) and dropped() is None  # freed before the collector came back
    assert gc.isenabled() and out.exists()
    assert redline_main(["apply", str(tmp_path / "missing.docx"), str(reply)]) == 3
    assert gc.isenabled()
