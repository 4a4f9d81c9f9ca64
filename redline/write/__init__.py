"""The writing layer: planned changes to changed parts to the output's bytes, read back.

* :mod:`~redline.write.options` -- what a write is told (the author and date every revision mark
  carries, checked once) and what it reports
* :mod:`~redline.write.arguments` -- the old path of the author and date checks
* :mod:`~redline.write.writer` -- located edits written as native tracked changes
* :mod:`~redline.write.runs` -- run surgery: runs split and cut at view offsets, properties copied
* :mod:`~redline.write.formatting` -- tracked formatting, rPrChange / pPrChange (format entries, compare)
* :mod:`~redline.write.renumber` -- the written document's paragraph numbering, predicted for the report
* :mod:`~redline.write.moves` -- a clause move written as one native Word move (moveFrom / moveTo ranges)
* :mod:`~redline.write.rows` -- tracked table rows, contents and all (row entries and compare)
* :mod:`~redline.write.tree` -- element surgery (remove, unwrap, join) the writer and decisions share
* :mod:`~redline.write.splice` -- a changed part's bytes: changed paragraphs spliced into its text
* :mod:`~redline.write.decisions` -- checked decisions carried out: changes accepted or rejected, untracked
* :mod:`~redline.write.comments` -- rationale comments, replies and resolved threads
* :mod:`~redline.write.readback` -- the output read back by reading again only what changed
* :mod:`~redline.write.publish` -- the one write tail: write, splice, bytes, read back (apply and compare)
"""
