"""The old module paths (before the layer folders, and before the big rooms were split) keep
working for one release: the same module object as the new path, with a DeprecationWarning
naming it (:mod:`redline.compat`), and every name the old module gave."""

from __future__ import annotations

import importlib
import sys

import pytest


def _fresh(monkeypatch: pytest.MonkeyPatch, old: str) -> None:
    """Forget an earlier import of ``old``, so that importing it again warns again."""
    monkeypatch.delitem(sys.modules, old, raising=False)


def test_the_old_view_path_gives_the_model_and_the_builder_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fresh(monkeypatch, "redline.view")
    with pytest.warns(DeprecationWarning, match=r"redline\.view is now redline\.read\.view"):
        from redline.view import DocumentView, build_view  # type: ignore[import-not-found]

    import redline.read.build
    import redline.read.view

    assert DocumentView is redline.read.view.DocumentView
    assert build_view is redline.read.build.build_view
    assert sys.modules["redline.view"] is redline.read.view  # one module: a monkeypatch patches both


def test_the_view_module_forwards_every_name_that_moved_out_of_it() -> None:
    import redline.read.build
    import redline.read.labels
    import redline.read.view as view

    moved = {
        "MAX_PARAGRAPHS": redline.read.build,
        "ViewBuilder": redline.read.build,
        "flatten": redline.read.build,
        "story_parts": redline.read.build,
        "stories_of": redline.read.build,
        "unread": redline.read.build,
        "build_view": redline.read.build,
        "scanned_view": redline.read.build,
        "verify_only_view": redline.read.build,
        "scan_story_part": redline.read.build,
        "numbering_of": redline.read.labels,
    }
    for name, home in moved.items():
        assert getattr(view, name) is getattr(home, name), name
    with pytest.raises(AttributeError, match="no_such_name"):
        view.no_such_name  # noqa: B018


def test_the_sections_module_forwards_the_outline_that_moved_out_of_it() -> None:
    import redline.read.outline
    import redline.read.sections as sections

    for name in ("Entry", "Head", "Outline", "build_outline"):
        assert getattr(sections, name) is getattr(redline.read.outline, name), name
    with pytest.raises(AttributeError, match="no_such_name"):
        sections.no_such_name  # noqa: B018


def test_the_locate_module_forwards_the_hints_that_moved_out_of_it() -> None:
    import redline.match.hints
    import redline.match.locate as locate

    assert locate.NearMiss is redline.match.hints.NearMiss
    assert locate.describe_difference is redline.match.hints.describe_difference
    with pytest.raises(AttributeError, match="no_such_name"):
        locate.no_such_name  # noqa: B018


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("redline.package", "redline.opc.package", "CODES"),
        ("redline.load", "redline.read.load", "load_view"),
        ("redline.inputs", "redline.opc.inputs", "read_regular"),
        ("redline.zipread", "redline.opc.zipread", "Limits"),
        ("redline.hints", "redline.match.hints", None),
        ("redline.arguments", "redline.write.arguments", None),
        ("redline.readback", "redline.write.readback", "read_again"),
        ("redline.scan", "redline.read.scan", "Check"),
        ("review.job", "redline_review.job", None),
    ],
)
def test_an_old_path_the_readme_documents_is_the_new_module(
    monkeypatch: pytest.MonkeyPatch, old: str, new: str, name: str | None
) -> None:
    _fresh(monkeypatch, old)
    if old.startswith("review."):  # the old package warns of its own name first
        _fresh(monkeypatch, "review")
        with pytest.warns(DeprecationWarning, match=r"review is now redline_review"):
            importlib.import_module("review")
    with pytest.warns(DeprecationWarning, match=rf"{old} is now {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    if name is not None:
        assert getattr(module, name) is getattr(importlib.import_module(new), name)


def test_redline_compare_still_gives_compare() -> None:
    from redline.compare import compare
    from redline.compare.diff import compare as defined

    assert compare is defined


def test_an_old_path_leaves_the_new_module_its_own_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    """importlib gives a module loaded by an old path that path's spec; the alias puts the
    module's own back, so a relative import it makes later (a lazy one, inside a function)
    raises no ImportWarning (``__package__ != __spec__.parent``: an error under our filters)."""
    _fresh(monkeypatch, "redline.view")
    with pytest.warns(DeprecationWarning, match=r"redline.view is now redline.read.view"):
        module = importlib.import_module("redline.view")
    assert module.__spec__ is not None and module.__spec__.name == "redline.read.view"
    assert module.__spec__.parent == module.__package__
    from tests.support import lease, view_of

    assert view_of(lease()).sections_named("1")  # (imports redline.read.headings relatively, on first use)
