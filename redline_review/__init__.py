"""Batch work, above both ``redline`` and ``summarize``: a folder (or an fsspec URL) of contracts
with their replies, each document the same pure job.

``job`` pairs files and runs one document (:func:`redline_review.job.run_document`: apply the reply,
check the summary, proofread; or compare with a new version; or reconcile a round); ``runner``
feeds the jobs to an executor (this process, a local pool) and
writes every output, ``summary.json`` and ``report.html``; ``cluster`` is the Dask executor;
``storage`` the folder or URL the files live in; ``html_report`` the page a person reads.
"""
