"""The batch on Dask: identical results to the local run, and a dying worker loses nothing."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from redline.apply import ApplyOptions
from redline.match.locate import Locator
from redline.opc.package import Package
from redline.read.build import build_view
from redline_review.cluster import DaskExecutor
from redline_review.job import FAILED
from redline_review.runner import InProcess, LocalPool, run_review
from redline_review.storage import LocalStorage, open_storage
from testing.contractgen import generate_contract

OPTIONS = ApplyOptions(date="2026-01-01T00:00:00Z")


def _reply_for(doc: bytes) -> str:
    """A few real edits and one refusal, drawn from the document's own text."""
    view = build_view(Package.from_bytes(doc))
    loc = Locator(view)
    edits = []
    for para in view.paragraphs:
        words = view.paragraph_text(para).split()
        if len(words) > 12:
            anchor = " ".join(words[2:8])
            if loc.count(anchor) == 1:
                edits.append({"anchor": anchor, "replacement": anchor.replace(" ", " duly ", 1)})
        if len(edits) == 4:
            break
    edits.append({"anchor": "a sentence this contract never says", "replacement": "x"})
    return json.dumps({"edits": edits})


@pytest.fixture(scope="module")
def batch_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("batch")
    for i in range(6):
        kind = ("lease", "nda", "msa")[i % 3]
        doc = generate_contract(kind, seed=100 + i)  # type: ignore[arg-type]
        (folder / f"c{i}.docx").write_bytes(doc)
        (folder / f"c{i}.reply.json").write_text(_reply_for(doc))
    return folder


@pytest.fixture(scope="module")
def local_run(batch_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local")
    run_review(LocalStorage(batch_dir), LocalStorage(out), OPTIONS, LocalPool(2))
    return out


def _same_outputs(a: Path, b: Path) -> None:
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        if name.endswith(".json") or name.endswith(".html"):
            assert (a / name).read_bytes() == (b / name).read_bytes(), name
        elif name.endswith(".docx"):
            with zipfile.ZipFile(a / name) as za, zipfile.ZipFile(b / name) as zb:
                assert za.namelist() == zb.namelist()
                for member in za.namelist():
                    assert za.read(member) == zb.read(member), (name, member)


def test_in_process_and_local_pool_agree(batch_dir: Path, local_run: Path, tmp_path: Path) -> None:
    run_review(LocalStorage(batch_dir), LocalStorage(tmp_path), OPTIONS, InProcess())
    _same_outputs(local_run, tmp_path)


@pytest.mark.slow
def test_local_cluster_with_two_workers_gives_identical_results(
    batch_dir: Path, local_run: Path, tmp_path: Path
) -> None:
    summary = run_review(LocalStorage(batch_dir), LocalStorage(tmp_path), OPTIONS, DaskExecutor(workers=2))
    assert summary.exit_code == 1
    _same_outputs(local_run, tmp_path)


@pytest.mark.slow
def test_a_worker_killed_mid_batch_loses_no_document(
    batch_dir: Path, local_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.cluster_faults import crash_once

    monkeypatch.setenv("REDLINE_CRASH_ONCE", f"c3:{tmp_path / 'crashed.marker'}")
    out = tmp_path / "out"
    out.mkdir()
    run_review(
        LocalStorage(batch_dir), LocalStorage(out), OPTIONS, DaskExecutor(workers=2, function=crash_once)
    )
    assert (tmp_path / "crashed.marker").exists()  # the worker really died once
    _same_outputs(local_run, out)


@pytest.mark.slow
def test_a_document_that_kills_its_worker_twice_is_reported_failed(
    batch_dir: Path, local_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.cluster_faults import crash_always

    monkeypatch.setenv("REDLINE_CRASH_ALWAYS", "c1")
    executor = DaskExecutor(workers=2, function=crash_always)
    summary = run_review(LocalStorage(batch_dir), LocalStorage(tmp_path), OPTIONS, executor)
    by = {d["name"]: d for d in summary.documents}
    assert set(by) == {f"c{i}" for i in range(6)}  # every document has an outcome
    assert by["c1"]["outcome"] == FAILED and "failed twice" in by["c1"]["message"]
    assert not (tmp_path / "c1.redlined.docx").exists()
    # A document queued on a worker that died with c1 is retried too; whatever completed is
    # exactly what the local run produced.
    done = [name for name, d in by.items() if d["outcome"] != FAILED]
    assert done
    for name in done:
        report = f"{name}.report.json"
        assert (tmp_path / report).read_bytes() == (local_run / report).read_bytes()
    assert (tmp_path / "summary.json").exists()


def test_fsspec_memory_filesystem_in_and_out(batch_dir: Path, local_run: Path, tmp_path: Path) -> None:
    pytest.importorskip("fsspec")
    import fsspec

    fs = fsspec.filesystem("memory")
    for p in batch_dir.iterdir():
        fs.pipe_file(f"/in-batch/{p.name}", p.read_bytes())
    src, dst = open_storage("memory://in-batch"), open_storage("memory://out-batch")
    dst.makedirs()
    run_review(src, dst, OPTIONS, InProcess())
    for name in dst.list():
        (tmp_path / name).write_bytes(dst.read(name))
    _same_outputs(local_run, tmp_path)
