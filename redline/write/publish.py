"""The one write tail: planned changes -> the output's bytes, read back before anyone may have them.

:func:`write_and_check` is what ``apply`` and ``compare`` both do once they know what to write:
check the view's trees, run the writer, carry out the decisions and write the comments and
threads (``apply``), or a further step of the caller's own (``compare``'s moves), splice the
changed parts, make the package's bytes, and read those bytes back as the loader reads any
document (:func:`check_output`: :func:`redline.write.readback.read_again`, falling back to the
full read, against the same limits).  Its answer is one value: the output, what the writer
reports and what the write changed, with the output as the loader read it (:class:`Written`);
or the refusal -- ``unloadable_output`` when the loader would refuse the output, the
writer's own refusal when it refuses a part -- and then there is no output to publish.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lxml import etree

from shared_schema import Code

from ..match.verify import Planned
from ..opc.package import Limits, Package, PackageError
from ..read.load import load_view
from ..read.view import DocumentView
from .options import WriteOptions, WriteResult
from .readback import Changes, read_again, tag_change
from .splice import Splice
from .writer import Ids, MarkupOverflow, Writer, document_ids

# Decisions on others' revisions, replies and resolved threads (redline.match.decisions) and
# rationale comments (redline.write.comments) are imported by the write that has them.
if TYPE_CHECKING:
    from shared_schema.models import Refusal

    from ..match.decisions import DecisionPlan

__all__ = ["Step", "Written", "check_output", "make_writer", "unloadable", "write_and_check"]

Step = Callable[[Writer, WriteResult], Iterable[str]]
"""A caller's own change to the trees once the writer is done, before any part becomes bytes
(``compare`` writes its moves so): given the writer (its ids, its stamp) and its result, it
changes the working copy's trees and returns the parts it changed.  What it raises is the
caller's: the write stops there, and nothing is made."""


@dataclass
class Written:
    """A write that may be published: ``output`` (the document's bytes), what the writer
    reports (``result``), what the write changed (``changes``), and ``output`` as the loader
    read it back (``package``, ``view``: with ``labels=False`` the view's labels are given on
    first use of :meth:`DocumentView.finish_labels`)."""

    output: bytes
    result: WriteResult
    changes: Changes
    package: Package = field(repr=False)
    view: DocumentView = field(repr=False)


def write_and_check(
    package: Package,
    view: DocumentView,
    planned: list[Planned],
    options: WriteOptions,
    decisions: DecisionPlan | None = None,
    *,
    limits: Limits | None = None,
    labels: bool = True,
    step: Step | None = None,
) -> Written | Refusal:
    """Write ``planned`` (and ``decisions``: accepted and rejected revisions, replies,
    resolved threads) into ``view``'s working copy with ``options``, then ``step`` when given;
    the output read back against ``limits`` (the limits the input was loaded with): a
    :class:`Written`, or the :class:`Refusal` that leaves nothing to publish (a part the
    writer refuses, or ``unloadable_output``).  ``view`` must have been built with its trees
    (:func:`redline.read.load.load_view`, ``trees=True``)."""
    limit = (limits or package.limits).max_markup
    try:
        output, result, changes = _write(package, view, planned, options, decisions, step, limit)
    except PackageError as exc:
        from shared_schema.models import Refusal  # (a refusal is the public model: pydantic then)

        return Refusal.from_error(exc)
    except MarkupOverflow:
        from shared_schema.models import Refusal

        return unloadable(
            Refusal(
                code=Code.TOO_COMPLEX,
                message=(
                    f"The document's XML holds more than {limit:,} tags; no real contract comes close, "
                    "and a file like this is built to cost time and memory, so it is refused."
                ),
            )
        )
    back = check_output(output, limits, labels=labels, since=(package, view, changes))
    if not isinstance(back, tuple):  # a Refusal
        return back
    return Written(output, result, changes, *back)


def check_output(
    output: bytes,
    limits: Limits | None = None,
    *,
    labels: bool = True,
    since: tuple[Package, DocumentView, Changes] | None = None,
) -> tuple[Package, DocumentView] | Refusal:
    """``output`` read back by the one load step (:func:`redline.read.load.load_view`, the same
    limits): its package and view, or the refusal ``unloadable_output`` when the loader would
    refuse it -- a document nothing may publish, since every later call would refuse it (a
    replacement so long and repetitive that the compression-ratio guard trips, say).
    ``labels=False``: the view's labels are given later (:meth:`DocumentView.finish_labels`).
    ``since``: the package and view ``output`` was written from, and what the write changed:
    what it left alone is not read again (:func:`redline.write.readback.read_again`: the same
    checks, the same package and view, the same refusals)."""
    if since is not None:
        package, view, changes = since
        again = read_again(package, view, output, changes, limits, labels=labels)
        if again is not None:
            return again
    loaded = load_view(output, limits, labels=labels)
    if isinstance(loaded, tuple):
        return loaded
    return unloadable(loaded)


def unloadable(loaded: Refusal) -> Refusal:
    """``unloadable_output``: the output would be refused, as ``loaded`` says, when read again."""
    from shared_schema.models import Refusal

    return Refusal(
        code=Code.UNLOADABLE_OUTPUT,
        message=(
            "The edited document would be refused when read again "
            f"({loaded.message.rstrip('.')} [{loaded.code}]), so it was not written."
        ),
        hint="Make the edits smaller (a shorter or less repetitive replacement), or fewer per call.",
    )


def _write(
    package: Package,
    view: DocumentView,
    planned: list[Planned],
    options: WriteOptions,
    plan: DecisionPlan | None,
    step: Step | None,
    limit: int,
) -> tuple[bytes, WriteResult, Changes]:
    view.check_tree()
    if not planned and not plan:
        return package.to_bytes({}), WriteResult(), Changes()
    writer = make_writer(package, view, options)
    if options.track and not plan and step is None:
        # nothing after the writer takes a tag away (decisions and compare's moves may): what
        # it adds counts against the room the input leaves under the loader's limit, less one
        # tag for each empty element a serialised part may write shorter (<a></a> as <a/>)
        writer.room = limit - package.markup
        writer.slack = lambda: _shorter(package, view)
    result = writer.write(planned, also=plan.ranges if plan else ())
    splice = writer.splice
    assert splice is not None
    touched = set(result.touched_parts)
    if step is not None:
        touched.update(step(writer, result))
    roots: dict[str, etree._Element] = {}
    if plan:  # decisions and threads change the trees after the writer (untracked)
        from .decisions import story_roots, write_decisions

        roots = story_roots(package, view)
        if write_decisions(plan, roots):
            # a paragraph joined or a row gone: the writer's count of the paragraphs each edit
            # touched no longer holds for the written document; none is reported
            result.touched_paragraphs = {}
        for part in plan.whole_parts:
            splice.whole(part)
        touched |= plan.parts
    c_changed: dict[str, bytes] = {}
    added: list[tuple[str, bytes]] = []
    if result.comments:
        from .comments import add_comments

        c_changed, c_added = add_comments(splice.working, result.comments, writer.options, writer.stamp)
        added.extend(c_added)
    if plan is not None and plan.threads:
        from .comments import write_threads

        t_changed, t_added = write_threads(
            splice.working, plan.threads, roots, writer.options, writer.stamp, writer.new_id
        )
        c_changed.update(t_changed)
        added.extend(t_added)
    changed = splice.changed(touched)
    changed.update(c_changed)
    spliced = {part: found for part, found in splice.spliced.items() if part not in c_changed}
    # the output's tags, as the loader will count them, before anything is zipped
    tags = package.markup + sum(data.count(b"<") for _, data in added)
    tags += sum(tag_change(package, part, data, spliced.get(part)) for part, data in changed.items())
    if tags > limit:
        raise MarkupOverflow()
    return package.to_bytes(changed, added), result, Changes(changed, added, spliced)


# compiled when first asked for (the empty-pair pattern alone is ≈2 ms to compile, and most
# writes never need the count: issue 32)
_EMPTY_PAIR = rb"""<([^\s/>!?]+)(?:\s(?:[^<>"']|"[^"]*"|'[^']*')*)?></\1\s*>"""
_CDATA = rb"<!\[CDATA\[(.*?)\]\]>"


def _shorter(package: Package, view: DocumentView) -> int:
    """At most how many tags fewer the parts ``view`` reads may hold once serialised: an
    element written empty as a pair (``<w:rPr></w:rPr>``) may come out as one tag, a CDATA
    section as escaped text.  Counted only when the writer's count first runs out."""
    found = 0
    for part in {p.part for p in view.paragraphs}:
        if part in package:
            data = package.read(part)
            found += len(re.findall(_EMPTY_PAIR, data))
            found += sum(1 + m.count(b"<") for m in re.findall(_CDATA, data, re.DOTALL))
    return found


def make_writer(package: Package, view: DocumentView, options: WriteOptions) -> Writer:
    """A writer for ``view`` (built by :func:`build_view`: its trees are its working copy's)
    whose revision ids are numbers the package does not use, within what Word reads
    (:class:`redline.write.writer.Ids`: above every id it uses while they stay under 2^31),
    and whose changed parts
    :attr:`Writer.splice` gives as bytes."""
    if view.working is None:
        raise TypeError("the view has no working copy to write into: build it with build_view()")
    parts = (p for p in package.names if p.startswith("word/") and p.endswith(".xml") and _has_ids(p))
    ids = Ids(document_ids(package.read(p) for p in parts))
    return Writer(view, options, ids, Splice(view.working, view))


def _has_ids(part: str) -> bool:
    name = part.rsplit("/", 1)[-1]
    return name.startswith(("document", "header", "footer", "footnotes", "endnotes", "comments"))
