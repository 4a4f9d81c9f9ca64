"""The reading layer: a :class:`~redline.opc.package.Package` to a :class:`~redline.read.view.DocumentView`.

* :mod:`~redline.read.roles` -- the one table of element roles every reader consults
* :mod:`~redline.read.paragraphs` -- the paragraph events readers emit, assembled into a story's text
* :mod:`~redline.read.walk` -- the tree reader (the reference, and the fallback)
* :mod:`~redline.read.scan` -- the fast reader: a part's XML text with no tree
* :mod:`~redline.read.view` -- the document view: every story flattened, mapped back to the XML
* :mod:`~redline.read.partial` -- the main part parsed only where a write asks (paragraphs on demand)
* :mod:`~redline.read.build` -- building the view: a package's stories read into it, scanned or walked
* :mod:`~redline.read.labels` -- the numbers Word displays and the section each paragraph lies in
* :mod:`~redline.read.numbering` -- paragraph numbers as Word displays them
* :mod:`~redline.read.numformat` -- list number formats: a counter written as "iv", "D", "fourth"
* :mod:`~redline.read.sections` -- clauses as a lawyer cites them: numbers, sections, names
* :mod:`~redline.read.outline` -- the outline: the sections paragraphs head, nested, and their names
* :mod:`~redline.read.ids` -- revision and comment ids read as Word reads them: numbers ("0005" is 5)
* :mod:`~redline.read.annotations` -- other authors' tracked changes and comments, tied to the view
* :mod:`~redline.read.notes` -- a footnote's or endnote's reference mark in the body (where its comments go)
* :mod:`~redline.read.markup` -- the text with revisions and comments inline (``view --markup``)
* :mod:`~redline.read.shapes` -- the view as JSON: ``view --json`` and what the tools return
* :mod:`~redline.read.load` -- the one load step: bytes (or a file) to package and view
"""
