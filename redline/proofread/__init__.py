"""Proofreading a contract: defined terms, cross-references and numbering, of the document and
of what a reply would break (``redline check``)."""
