"""The ``dask`` backend: the chunks of a run become tasks on a Dask cluster.

``loba simulate --backend dask`` without ``--scheduler`` starts a ``distributed.LocalCluster``
(worker processes on this machine, loopback only) for the run and closes it afterwards; with
``--scheduler tcp://HOST:PORT`` it uses that cluster and leaves it running.

Each task plays one chunk with :func:`sim.chunks.play_chunk`, the very function the local
backend calls, and returns the chunk's Parquet parts as bytes (plus its summary totals) to this
process, which writes them into the run directory and updates the manifest. So workers need no
shared storage and the run directory has one writer; the traffic is the compressed Parquet,
about as much as is written to disk anyway.

Before the first chunk every worker loads (or compiles) the kernel once, and the workers'
loba-sim sources must be the same as this process's (checked: the source fingerprint), since
bit-identical results need the same engine. Within a worker process one kernel call runs at a
time, with ``host CPUs // worker processes on that host`` kernel threads (``--threads`` sets it).
A failing task is retried once (Dask ``retries=1``); a second failure stops the run and names
the chunk, after writing the chunks that were already running.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
from collections import Counter
from pathlib import Path

from .chunks import ChunkJob, Sink, cpu_count, play_chunk, stopped_by, warm
from .games import game_names, get_game

CONNECT_TIMEOUT = "20s"
WORKER_WAIT_S = 60


class BackendError(ValueError):
    """A cluster that cannot be used for the run. One sentence."""


def fingerprint() -> str:
    """Hash of every source file of ``sim`` and every registered game's RULES_VERSION (outside
    games included, as registered now): equal means the same engine."""
    return _fingerprint(tuple(game_names()))


@functools.lru_cache(maxsize=4)
def _fingerprint(names: tuple[str, ...]) -> str:
    root = Path(__file__).resolve().parent
    versions = ",".join(f"{n}={get_game(n).rules.version}" for n in names)
    h = hashlib.sha1(f"rules-version={versions}".encode())
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _worker_fingerprint() -> str:
    return fingerprint()  # runs on each worker: that worker's own sources


def _kernel_threads(threads_map: dict, threads: int | None) -> int:
    from distributed import get_worker

    return threads or threads_map.get(get_worker().address, 1)


def _task(job: ChunkJob, k, threads_map: dict, threads: int | None):
    return play_chunk(job, k, threads=_kernel_threads(threads_map, threads))


def _warm_task(job: ChunkJob, threads_map: dict, threads: int | None) -> float:
    return warm(job, threads=_kernel_threads(threads_map, threads))


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__).rstrip(".")


@contextlib.contextmanager
def _quiet_logs():
    """Dask logs connection chatter on shutdown; the CLI's output is the summary."""
    saved = {}
    for name in ("distributed", "tornado", "asyncio"):
        lg = logging.getLogger(name)
        saved[name] = lg.level
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


@contextlib.contextmanager
def connect(scheduler: str | None, workers: int | None):
    """A ``Client`` on the cluster at ``scheduler``, or on a new local cluster (closed after)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise BackendError("--backend dask needs Dask: pip install 'dask[distributed]'.") from None

    cluster = None
    try:
        if scheduler is None:
            cluster = LocalCluster(
                n_workers=workers or cpu_count(),
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=":0",
                silence_logs=logging.CRITICAL,
            )
            client = Client(cluster)
        else:
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except Exception as e:
                raise BackendError(
                    f"Could not reach the Dask scheduler at '{scheduler}' ({_first_line(e)})."
                ) from None
        try:
            try:
                client.wait_for_workers(1, timeout=WORKER_WAIT_S)
            except Exception:
                raise BackendError(
                    f"The Dask scheduler at '{scheduler}' has no workers"
                    f" (waited {WORKER_WAIT_S} s)."
                ) from None
            yield client
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _check_workers(client, where: str) -> dict:
    """Same engine on every worker; returns the kernel threads per call, by worker."""
    try:
        prints = client.run(_worker_fingerprint)
        cpus = client.run(os.cpu_count)
    except Exception as e:
        raise BackendError(
            f"The Dask workers at {where} cannot run loba-sim ({_first_line(e)}); install the"
            " same loba-sim on every worker."
        ) from None
    mine = fingerprint()
    other = sorted({p for p in prints.values() if p != mine})
    if other:
        raise BackendError(
            f"The Dask workers at {where} run other loba-sim sources (fingerprint {other[0]},"
            f" here {mine}); install the same version on every worker for identical results."
        )
    info = client.scheduler_info(n_workers=-1)["workers"]
    per_host = Counter(w["host"] for w in info.values())
    return {addr: max(1, (cpus.get(addr) or 1) // per_host[w["host"]]) for addr, w in info.items()}


def run_dask(
    job: ChunkJob,
    todo,
    sink: Sink,
    *,
    scheduler: str | None,
    workers: int | None,
    threads: int | None,
    begin=None,
) -> dict:
    """Play the pieces ``todo`` of ``job`` (an iterator of :class:`sim.rundir.Piece`, read
    lazily) as Dask tasks, handing each result to ``sink``.

    ``begin(info)`` is called once the cluster is ready (the run directory records it).
    Returns the backend's description for the manifest and the summary line.
    """
    where = f"'{scheduler}'" if scheduler else "the local cluster"
    if scheduler is None:
        warm(job, threads=1)  # compile here once; the workers then load the on-disk cache
    with _quiet_logs(), connect(scheduler, workers) as client:
        from distributed import as_completed, wait

        threads_map = _check_workers(client, where)
        addrs = sorted(threads_map)
        warming = [
            client.submit(
                _warm_task,
                job,
                threads_map,
                threads,
                workers=[a],
                allow_other_workers=False,
                pure=False,
                key=f"loba-warm-{job.token}-{i}",
            )
            for i, a in enumerate(addrs)
        ]
        wait(warming)
        for f in warming:
            if f.status != "finished":
                raise BackendError(
                    f"A Dask worker at {where} could not load the kernel"
                    f" ({_first_line(f.exception())})."
                )
        info = {
            "backend": "dask",
            "scheduler": scheduler or "local cluster",
            "workers": len(addrs),
            "threads": threads or max(threads_map.values()),
        }
        if begin is not None:
            begin(info)
        sink.start()
        nthreads = sum(client.nthreads().values()) or len(addrs)
        pending = iter(todo)
        live: dict[str, tuple[int, object]] = {}  # task key -> (chunk, future)
        running = as_completed()
        stop = False

        lost: Counter = Counter()  # chunks whose result a dying worker took with it

        def submit(k, attempt: int = 0) -> None:
            f = client.submit(
                _task,
                job,
                k,
                threads_map,
                threads,
                key=f"loba-chunk-{job.token}-{k.name}" + (f"-again{attempt}" if attempt else ""),
                pure=False,
                retries=1,
            )
            live[f.key] = (k, f)
            running.add(f)

        def submit_next() -> None:
            k = next(pending, None)
            if k is not None:
                submit(k)

        for _ in range(2 * nthreads):  # bounded: results wait in this process's memory
            submit_next()
        failed: list[tuple[int, BaseException]] = []
        try:
            for f in running:
                k, _ = live.pop(f.key)
                if f.status != "finished":
                    err = f.exception() if f.status == "error" else None
                    if err is None and lost[k] < 3 and not stop:
                        lost[k] += 1  # lost with its worker, not failed: play it again
                        submit(k, lost[k])
                        continue
                    failed.append((k, err or RuntimeError(f"its task was {f.status}")))
                    stop = True  # keep what is running, start nothing new
                    continue
                res = f.result()
                f.release()
                sink.put(res)
                if not stop:
                    submit_next()
        finally:
            if live:  # interrupted: nothing keeps running on the cluster for this run
                client.cancel([f for _, f in live.values()])
        if failed:
            k, e = min(failed, key=lambda x: x[0])
            raise stopped_by(job, k, e, sink.run)
    return info
