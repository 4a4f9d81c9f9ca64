"""The test kit: not part of the installed product.

- ``contractgen`` — realistic contracts as .docx bytes, deterministic from a seed (clause prose in
  ``data/*.json``); ``python -m testing.contractgen sample_contracts`` regenerates the samples.
- ``docbuild`` — small .docx files from a compact notation, for unit tests.
- ``zips`` — zip members with fixed timestamps: generated documents are byte-reproducible.
- ``hostile_docs`` — valid and hostile packages (hand-written zips whose every field can lie).
- ``counterparty`` — counterparty redlines in the XML shapes other tools (and Word) write.
- ``peers`` — those tools' own redlines over any contract, run in their own environments.

Only the tests and the benchmarks import it; python-docx, which ``contractgen`` uses, is a
test/dev dependency (the ``test`` extra).
"""
