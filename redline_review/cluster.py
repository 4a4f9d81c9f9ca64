"""Run a batch on Dask's distributed scheduler (optional extra ``redline[dask]``).

The cluster runs the very function the local pool runs, :func:`redline_review.job.run_document`;
only the executor differs.  Documents go out in bounded waves (``per_worker`` in flight per
worker), so the client's memory stays flat however large the batch; results come back as they
complete and the client writes them.  A task whose worker dies is retried elsewhere by Dask; a
document that fails twice is reported as ``failed`` and the batch goes on.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .job import JobResult, run_document

Task = tuple[Any, ...]
MAX_ATTEMPTS = 2


class DaskExecutor:
    def __init__(
        self,
        address: str | None = None,
        workers: int = 2,
        per_worker: int = 2,
        function: Callable[..., JobResult] = run_document,
    ) -> None:
        self.address = address
        self.workers = workers
        self.per_worker = per_worker
        self.function = function

    def run(self, tasks: Iterable[Task]) -> Iterator[JobResult]:
        import dask
        from distributed import Client, LocalCluster, as_completed

        cluster = None
        # A task whose worker dies fails at once (allowed-failures 0) and the client submits the
        # document again, once: a document that fails twice is reported as failed.  Counting
        # here rather than in the scheduler keeps a document that merely shared a dying worker
        # from being charged for its neighbour's crash twice over.
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            if self.address:
                client = Client(self.address)  # type: ignore[no-untyped-call]
            else:
                cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=self.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                )
                client = Client(cluster)  # type: ignore[no-untyped-call]
            try:
                yield from self._run(client, iter(tasks), as_completed)
            finally:
                client.close()  # type: ignore[no-untyped-call]
                if cluster is not None:
                    cluster.close()

    def _run(self, client: Any, tasks: Iterator[Task], as_completed: Any) -> Iterator[JobResult]:
        workers = max(1, len(client.scheduler_info().get("workers", {})) or self.workers)
        limit = self.per_worker * workers
        running: dict[Any, tuple[Task, int]] = {}
        queue = as_completed()

        def submit(task: Task, attempt: int) -> None:
            name = str(task[4])
            fut = client.submit(self.function, *task, key=f"redline-{name}-{uuid.uuid4().hex}", pure=False)
            running[fut] = (task, attempt)
            queue.add(fut)

        def submit_next() -> None:
            task = next(tasks, None)
            if task is not None:
                submit(task, 1)

        for _ in range(limit):
            submit_next()
        for fut in queue:
            task, attempt = running.pop(fut)
            try:
                result: JobResult = fut.result()
            except Exception as exc:
                fut.release()
                if attempt < MAX_ATTEMPTS:
                    submit(task, attempt + 1)
                    continue
                result = JobResult.failed(str(task[4]), f"failed twice on the cluster: {exc!r}")
            else:
                fut.release()
            yield result
            submit_next()
