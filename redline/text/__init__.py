"""Strings only, no XML: what matching and writing need to know about text itself.

* :mod:`~redline.text.normalize` -- the tolerant-match normalisation, with its offset map back
* :mod:`~redline.text.worddiff` -- the word diff the writer writes and the review page shows
* :mod:`~redline.text.typography` -- new text's quotes and apostrophes in the document's convention
"""
