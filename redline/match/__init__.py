"""The matching layer: a view and a reply's entries to planned changes, or refusals saying why.

Nothing here changes the document.

* :mod:`~redline.match.locate` -- find a quoted passage: exact, or tolerant of typography only
* :mod:`~redline.match.hints` -- near-miss hints for a refused quote, and their budget
* :mod:`~redline.match.deleted` -- quotes of text another author deleted: the stories with deletions put back
* :mod:`~redline.match.verify` -- decide, for every entry of a batch, where it lands or why not
* :mod:`~redline.match.fields` -- complex fields, for typing over a field's result or deleting it whole
* :mod:`~redline.match.crossref` -- a new clause number typed over a cross-reference
* :mod:`~redline.match.moves` -- edits inside another author's tracked move
* :mod:`~redline.match.moves_plan` -- clause moves: the clause, where it goes, or why not
* :mod:`~redline.match.decisions` -- accept / reject / reply / resolve checked against the annotations
* :mod:`~redline.match.formats` -- format entries: effective formatting, the plan, the refusals
"""
