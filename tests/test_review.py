"""End to end: `redline review` on the bundled samples, stats, the HTML page, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from html import escape
from pathlib import Path

import pytest

from redline.stats import collect
from redline_cli.redline import main as redline_main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_contracts"
EXPECTED = json.loads((SAMPLES / "expected.json").read_text())
DATE = "2026-01-01T00:00:00Z"


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("review")
    code = redline_main(["review", str(SAMPLES), "-o", str(out), "--jobs", "1", "--date", DATE])
    assert code == 1  # the samples deliberately carry refusable edits
    return out


@pytest.mark.parametrize("name", ["commercial-lease", "mutual-nda", "master-services-agreement"])
def test_every_sample_edit_has_its_expected_outcome(reviewed: Path, name: str) -> None:
    report = json.loads((reviewed / f"{name}.report.json").read_text())
    got = {e["id"]: e["status"] for e in report["edits"]}
    assert got == EXPECTED[name]
    for e in report["edits"]:
        if e["status"] == "applied":
            assert e["error"] is None and e["locations"]
        else:
            assert e["error"]["code"] and e["error"]["message"] and e["error"]["hint"]
    assert report["totals"]["proposed"] == len(EXPECTED[name])


def test_sample_summary_quotes_have_expected_outcomes(reviewed: Path) -> None:
    report = json.loads((reviewed / "commercial-lease.summary-report.json").read_text())
    got = {f"{p['index']}/{i}": q["status"] for p in report["points"] for i, q in enumerate(p["quotes"])}
    assert got == EXPECTED["commercial-lease.summary"]


def test_outputs_are_tracked_changes_that_pandoc_reads(reviewed: Path) -> None:
    if shutil.which("pandoc") is None:
        pytest.skip("pandoc not installed")
    for name in EXPECTED:
        if name.endswith(".summary"):
            continue
        out = reviewed / f"{name}.redlined.docx"
        src = SAMPLES / f"{name}.docx"
        rejected = subprocess.run(
            ["pandoc", "--track-changes=reject", "-t", "plain", str(out)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        original = subprocess.run(
            ["pandoc", "-t", "plain", str(src)], capture_output=True, text=True, check=True
        ).stdout
        assert rejected.split() == original.split()
        accepted = subprocess.run(
            ["pandoc", "--track-changes=accept", "-t", "plain", str(out)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert accepted.split() != original.split()


def test_summary_json_lists_every_document_with_totals(reviewed: Path) -> None:
    summary = json.loads((reviewed / "summary.json").read_text())
    names = {d["name"] for d in summary["documents"]}
    assert names == {"commercial-lease", "mutual-nda", "master-services-agreement"}
    assert summary["exit"] == 1
    total = sum(len(v) for k, v in EXPECTED.items() if not k.endswith(".summary"))
    assert summary["totals"]["proposed"] == total
    applied = sum(
        1 for k, v in EXPECTED.items() if not k.endswith(".summary") for s in v.values() if s == "applied"
    )
    assert summary["totals"]["applied"] == applied


def test_stats_counts_equal_the_reports_unapplied_edits(reviewed: Path) -> None:
    stats = collect([str(reviewed)])
    refused = [
        s for k, v in EXPECTED.items() if not k.endswith(".summary") for s in v.values() if s != "applied"
    ]
    assert stats.unapplied == len(refused)
    assert sum(stats.by_code.values()) == len(refused)
    assert stats.by_code["ambiguous"] == refused.count("ambiguous")


def test_report_html_is_self_contained_and_puts_refusals_first(reviewed: Path) -> None:
    html = (reviewed / "report.html").read_text()
    assert "http://" not in html and "https://" not in html and "<script" not in html
    for external in ("<link", "<img", "<iframe", "@import", "url("):
        assert external not in html, external
    assert "<del>" in html and "<ins>" in html
    lease = _section(html, "commercial-lease")
    assert lease.index('class="unapplied"') < lease.index('class="applied"')
    assert lease.rindex('class="unapplied"') < lease.index('class="applied"')  # every refusal first


def _section(html: str, name: str) -> str:
    start = html.index(f"<h2>{name}<")
    end = html.find('<section class="doc">', start)
    return html[start : end if end != -1 else len(html)]


def test_report_html_shows_each_edits_rationale_and_plain_worded_status(reviewed: Path) -> None:
    html = (reviewed / "report.html").read_text()
    reply = (SAMPLES / "commercial-lease.reply.md").read_text()
    lease = _section(html, "commercial-lease")
    rationales = [
        json.loads("{" + line.strip().rstrip(",") + "}")["rationale"]
        for line in reply.splitlines()
        if '"rationale"' in line
    ]
    assert len(rationales) >= 5
    for rationale in rationales:
        assert f"Why: {escape(rationale)}" in lease, rationale
    # the status in words, the code beside it (secondary)
    assert "not applied: the quoted text is not in the document</div><code>not_found" in lease
    assert "not applied: the quoted text occurs in more than one place</div><code>ambiguous" in lease
    assert '<div class="status">applied</div>' in lease


def test_report_html_lists_every_unverified_summary_quote_with_its_reason(reviewed: Path) -> None:
    html = (reviewed / "report.html").read_text()
    lease = _section(html, "commercial-lease")
    report = json.loads((reviewed / "commercial-lease.summary-report.json").read_text())
    unverified = [q for p in report["points"] for q in p["quotes"] if q["status"] != "verified"]
    assert unverified
    t = report["totals"]
    assert f"{t['verified']} of {t['quotes']} quotes verified" in lease
    for q in unverified:
        assert f"“{escape(q['quote'])}” — not verified: {escape(q['error']['message'])}" in lease
    assert "Summary quote check" not in _section(html, "mutual-nda")  # no summary there


def test_report_html_links_each_documents_redlined_copy_and_reports(reviewed: Path) -> None:
    html = (reviewed / "report.html").read_text()
    for name in ("commercial-lease", "mutual-nda", "master-services-agreement"):
        section = _section(html, name)
        for file in (f"{name}.redlined.docx", f"{name}.report.json"):
            assert f'href="{file}"' in section and (reviewed / file).is_file(), file
    assert 'href="commercial-lease.summary-report.json"' in html


def _luminance(colour: str) -> float:
    hexes = colour.lstrip("#")
    if len(hexes) == 3:
        hexes = "".join(c * 2 for c in hexes)
    channels = [int(hexes[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_report_html_text_contrast_meets_wcag_aa() -> None:
    import re

    from redline_review.html_report import CSS, CSS_MORE

    assert round(_contrast("#888", "#fff"), 1) == 3.5  # the row numbers before: the check bites
    rules = re.findall(r"([^{}]+)\{([^}]*)\}", CSS + CSS_MORE)
    page = {"#fff", "#f6f6f4", "#fff4f3"}  # section, page, a row of a refused edit
    failures = []
    for selector, body in rules:
        decls = dict(d.split(":", 1) for d in body.split(";") if ":" in d)
        colour = decls.get("color")
        if colour is None:
            continue
        own = decls.get("background")
        if own is not None:
            backgrounds = {own}
        elif selector.strip().startswith("header"):
            backgrounds = {"#1f2d3d"}
        else:
            backgrounds = page
        for bg in backgrounds:
            ratio = _contrast(colour, bg)
            if ratio < 4.5:
                failures.append(f"{selector.strip()}: {colour} on {bg} is {ratio:.2f}:1")
    assert not failures, failures


def test_summary_json_names_each_documents_files_and_review_json_prints_it(
    reviewed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = json.loads((reviewed / "summary.json").read_text())
    for d in summary["documents"]:
        assert d["report"] == f"{d['name']}.report.json" and (reviewed / d["report"]).is_file()
        assert d["output"] == f"{d['name']}.redlined.docx" and (reviewed / d["output"]).is_file()
    lease = next(d for d in summary["documents"] if d["name"] == "commercial-lease")
    assert lease["summary_report"] == "commercial-lease.summary-report.json"
    capsys.readouterr()
    out = tmp_path / "again"
    args = ["review", str(SAMPLES), "-o", str(out), "--jobs", "1", "--date", DATE, "--json"]
    assert redline_main(args) == 1
    printed = capsys.readouterr()
    assert json.loads(printed.out) == json.loads((out / "summary.json").read_text())
    assert "15/25 edits applied" in printed.err  # the run's summary lines: stderr, as apply's


def test_a_dry_run_review_names_no_redlined_copy(tmp_path: Path) -> None:
    out = tmp_path / "dry"
    assert redline_main(["review", str(SAMPLES), "-o", str(out), "--jobs", "1", "--dry-run"]) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert all(d["output"] is None and d["report"] for d in summary["documents"])
    assert not list(out.glob("*.redlined.docx"))


def test_missing_reply_and_missing_document_are_reported(tmp_path: Path) -> None:
    shutil.copy(SAMPLES / "mutual-nda.docx", tmp_path / "lonely.docx")
    (tmp_path / "orphan.reply.json").write_text('{"edits": []}')
    shutil.copy(SAMPLES / "mutual-nda.docx", tmp_path / "ok.docx")
    (tmp_path / "ok.reply.json").write_text('{"edits": []}')
    out = tmp_path / "out"
    assert redline_main(["review", str(tmp_path), "-o", str(out), "--jobs", "1"]) == 1
    summary = json.loads((out / "summary.json").read_text())
    outcomes = {d["name"]: (d["outcome"], d["code"]) for d in summary["documents"]}
    assert outcomes == {
        "lonely": ("refused", "missing_reply"),
        "orphan": ("refused", "missing_document"),
        "ok": ("applied", None),
    }
    assert summary["totals"]["by_outcome"] == {"applied": 1, "refused": 2}


def test_a_hostile_document_does_not_stop_the_batch(tmp_path: Path) -> None:
    (tmp_path / "bad.docx").write_bytes(b"this is not a zip")
    (tmp_path / "bad.reply.json").write_text('{"edits": []}')
    shutil.copy(SAMPLES / "mutual-nda.docx", tmp_path / "good.docx")
    (tmp_path / "good.reply.json").write_text(
        json.dumps({"edits": [{"anchor": "Mutual", "replacement": "Mutual", "expected_matches": 99}]})
    )
    out = tmp_path / "out"
    assert redline_main(["review", str(tmp_path), "-o", str(out), "--jobs", "2"]) == 1
    summary = json.loads((out / "summary.json").read_text())
    by = {d["name"]: d for d in summary["documents"]}
    assert by["bad"]["outcome"] == "refused" and "not_a_zip" in by["bad"]["message"]
    assert by["good"]["outcome"] == "unapplied"
    assert not (out / "bad.redlined.docx").exists()
    assert (out / "good.redlined.docx").exists()


def test_review_of_an_empty_or_missing_folder_is_refused(tmp_path: Path) -> None:
    assert redline_main(["review", str(tmp_path), "-o", str(tmp_path / "o")]) == 3
    assert redline_main(["review", str(tmp_path / "nope"), "-o", str(tmp_path / "o")]) == 3


def test_local_pool_and_in_process_runs_agree(reviewed: Path, tmp_path: Path) -> None:
    out = tmp_path / "pool"
    assert redline_main(["review", str(SAMPLES), "-o", str(out), "--jobs", "2", "--date", DATE]) == 1
    for f in sorted(reviewed.iterdir()):
        if f.suffix == ".json":
            assert (out / f.name).read_bytes() == f.read_bytes(), f.name
        elif f.suffix == ".docx":
            with zipfile.ZipFile(f) as a, zipfile.ZipFile(out / f.name) as b:
                assert a.namelist() == b.namelist()
                for n in a.namelist():
                    assert a.read(n) == b.read(n), (f.name, n)


def test_console_script_runs_as_a_module() -> None:
    proc = subprocess.run([sys.executable, "-m", "redline", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "review" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "summarize", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "check" in proc.stdout


@pytest.mark.corpus
@pytest.mark.slow
def test_a_batch_over_the_real_corpus_with_generated_replies(tmp_path: Path, corpus_dir: Path) -> None:
    """Every real document gets its outputs and report (or its refusal), and stats agrees."""

    from redline.match.locate import Locator
    from redline.opc.package import Package, PackageError
    from redline.read.build import build_view

    folder = corpus_dir
    batch = tmp_path / "batch"
    batch.mkdir()
    docs = sorted(Path(folder).glob("*.docx"))
    refused = set()
    for path in docs:
        shutil.copy(path, batch / path.name)
        edits: list[dict[str, object]] = []
        try:
            view = build_view(Package.open(path))
        except PackageError:
            refused.add(path.stem)
        else:
            loc = Locator(view)
            for para in view.paragraphs:
                words = view.paragraph_text(para).split()
                if len(words) >= 8 and len(edits) < 4:
                    anchor = " ".join(words[1:6])
                    if loc.count(anchor) == 1 and not any(anchor in str(e["anchor"]) for e in edits):
                        edits.append({"anchor": anchor, "replacement": anchor + " (as amended)"})
        edits.append({"anchor": "a clause no contract in this corpus contains", "replacement": "x"})
        (batch / f"{path.stem}.reply.json").write_text(json.dumps({"edits": edits}))
    out = tmp_path / "out"
    assert redline_main(["review", str(batch), "-o", str(out), "--jobs", "2", "--date", DATE]) == 1
    summary = json.loads((out / "summary.json").read_text())
    by = {d["name"]: d for d in summary["documents"]}
    assert set(by) == {p.stem for p in docs}
    for name, entry in by.items():
        if name in refused:
            assert entry["outcome"] == "refused" and not (out / f"{name}.redlined.docx").exists()
            continue
        assert entry["outcome"] == "unapplied", (name, entry.get("message"))
        assert (out / f"{name}.redlined.docx").exists() and (out / f"{name}.report.json").exists()
    unapplied = 0
    for report in out.glob("*.report.json"):
        unapplied += sum(1 for e in json.loads(report.read_text())["edits"] if e["status"] != "applied")
    stats = collect([str(out)])
    assert stats.unapplied == unapplied and sum(stats.by_code.values()) == unapplied
    assert stats.by_code["not_found"] >= len(docs) - len(refused)


def test_apply_refuses_an_unreadable_reply_with_exit_3_and_writes_nothing(tmp_path: Path) -> None:
    doc = tmp_path / "nda.docx"
    shutil.copy(SAMPLES / "mutual-nda.docx", doc)
    out = tmp_path / "out.docx"
    assert redline_main(["apply", str(doc), str(tmp_path / "missing.json"), "-o", str(out)]) == 3
    assert not out.exists()


def test_a_slow_disk_does_not_hold_up_the_next_document(tmp_path: Path) -> None:
    """The client writes each result's files beside the executor, not in its way: the first
    document's write is held until the executor has been asked for the second document (with
    the files written inline, the executor would never be asked: the wait times out), and
    every file, summary entry and progress call is still there at the end."""
    import threading

    from redline.apply import ApplyOptions
    from redline_review.job import OK, JobResult
    from redline_review.runner import run_review
    from redline_review.storage import LocalStorage

    src = tmp_path / "in"
    src.mkdir()
    for name in ("a", "b", "c"):
        (src / f"{name}.docx").write_bytes(b"document")
        (src / f"{name}.json").write_text("[]")
    asked_for_second = threading.Event()

    class Executor:
        def run(self, tasks):  # type: ignore[no-untyped-def]
            for i, task in enumerate(tasks):
                if i == 1:
                    asked_for_second.set()
                yield JobResult(task[4], OK, 0, report_json=b"{}", output=task[0])

    class SlowDisk(LocalStorage):
        def write(self, name: str, data: bytes) -> None:
            if name.startswith("a."):
                assert asked_for_second.wait(60), "the next document waited for this write"
            super().write(name, data)

    (tmp_path / "out").mkdir()
    seen: list[str] = []
    summary = run_review(
        LocalStorage(src), SlowDisk(tmp_path / "out"), ApplyOptions(date=DATE), Executor(),
        lambda r: seen.append(r.name),
    )  # fmt: skip
    assert sorted(seen) == ["a", "b", "c"] and summary.exit_code == 0
    for name in ("a", "b", "c"):
        assert (tmp_path / "out" / f"{name}.redlined.docx").read_bytes() == b"document"
        assert json.loads((tmp_path / "out" / f"{name}.report.json").read_text()) == {}
    assert [d["output"] for d in summary.to_dict()["documents"]] == [f"{n}.redlined.docx" for n in "abc"]
