"""Run a batch on Dask's distributed scheduler (optional extra ``redline[dask]``).

The cluster runs the very function the local pool runs, :func:`redline.batch.run_document`;
only the executor differs.  Documents go out in bounded waves (``per_worker`` in flight per
worker), so the client's memory stays flat however large the batch; results come back as they
complete and the client writes them.  A task whose worker dies is retried elsewhere by Dask; a
document that fails twice is reported as ``failed`` and the batch goes on.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .apply import EXIT_REFUSED
from .batch import FAILED, JobResult, run_document

Task = tuple[Any, ...]


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
        # a document whose worker dies is tried on one more worker, then reported as failed
        with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
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
        names: dict[Any, str] = {}
        queue = as_completed()

        def submit() -> bool:
            task = next(tasks, None)
            if task is None:
                return False
            name = str(task[-1])
            fut = client.submit(
                self.function, *task, key=f"redline-{name}-{uuid.uuid4().hex}", retries=1, pure=False
            )
            names[fut] = name
            queue.add(fut)
            return True

        for _ in range(limit):
            if not submit():
                break
        for fut in queue:
            name = names.pop(fut)
            try:
                result: JobResult = fut.result()
            except Exception as exc:
                result = JobResult(
                    name, FAILED, EXIT_REFUSED, message=f"failed twice on the cluster: {exc!r}"
                )
            fut.release()
            yield result
            submit()
