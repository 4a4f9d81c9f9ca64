"""The example runs of ``redline check`` that README.md and docs/check.md show are real: each
shown command, run on the bundled sample contract, prints exactly the output shown."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from redline_cli.redline import main as redline_main

ROOT = Path(__file__).resolve().parent.parent
_RUN = re.compile(
    r"```sh\nredline check (?P<doc>\S+) - <<'EOF'\n(?P<reply>.*?)\nEOF\n```\n.*?```\n(?P<out>.*?)```",
    re.DOTALL,
)


def shown(path: Path) -> list[tuple[str, str, str]]:
    return [(m["doc"], m["reply"], m["out"]) for m in _RUN.finditer(path.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("page", ["README.md", "docs/check.md"])
def test_the_example_output_is_what_redline_check_prints(
    page: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    examples = shown(ROOT / page)
    assert examples, f"{page} shows no redline check run"
    for doc, reply, out in examples:
        path = tmp_path / "reply.json"
        path.write_text(reply, encoding="utf-8")
        code = redline_main(["check", str(ROOT / doc), str(path)])
        assert capsys.readouterr().out == out
        assert code == (0 if out.endswith("no findings\n") else 1)


def test_the_nda_example(capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "docs/check.md").read_text(encoding="utf-8")
    m = re.search(r"```\n\$ redline check (\S+) (\S+)\n(.*?)```", text, re.DOTALL)
    assert m is not None
    assert redline_main(["check", str(ROOT / m[1]), str(ROOT / m[2])]) == 1
    assert capsys.readouterr().out == m[3]


def test_the_json_example(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (ROOT / "docs/check.md").read_text(encoding="utf-8")
    m = re.search(r"With the insert alone and `--json`:\n\n```json\n(.*?)```", text, re.DOTALL)
    assert m is not None
    [(doc, reply, _out)] = shown(ROOT / "docs/check.md")
    entries = json.loads(reply)["edits"]
    path = tmp_path / "insert.json"
    path.write_text(json.dumps({"edits": [e for e in entries if e.get("action") == "insert_before"]}))
    assert redline_main(["check", str(ROOT / doc), str(path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == json.loads(m[1])
