"""Running favakit's batch jobs on Ray (``--ray auto|local|ADDRESS``).

Every long job in favakit is a list of work items processed in chunks by a stage that holds a
model (an encoder, an editor, a judge) or other heavy state (synthesis rules over a whole
knowledge source). The single-process run calls that stage in a loop; with ``--ray`` the same
stage becomes a Ray Data pipeline: the items are a dataset, ``map_batches`` runs the stage in a
pool of ``--workers`` actors (each loads its model once, with ``--gpus-per-worker`` GPUs), and
the results stream back to the driver **in input order**, where the command writes them exactly
as the single-process run does. So:

- results are the same as without Ray (the stage code is the same; the driver reorders);
- resuming works as before: the driver writes results as they arrive, with the same resumable
  writers (an output JSONL keyed by id, atomic shard files), and a rerun skips finished work;
- a killed worker is restarted by Ray and its chunk retried (actors restart without limit, their
  tasks are retried), and nothing is written twice, because only the driver writes;
- only the inputs the stage opens itself (a knowledge source, an index, a model folder) must
  exist at the same path on every node; outputs are written by the driver alone.

Nothing here imports Ray until a job asks for it, and without ``--ray`` nothing does.
"""

from __future__ import annotations

import argparse
import logging
import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from favakit.cli_args import non_negative, positive, positive_int
from favakit.deps import require
from favakit.errors import FavakitError, UsageError

__all__ = [
    "RayOptions",
    "WorkerError",
    "add_ray_options",
    "map_chunks_in_order",
    "map_in_order",
    "parse_shard",
    "ray_options",
]

log = logging.getLogger("favakit.distributed")

#: a stage: called once per worker, returns the function mapping a chunk of items to results
StageFactory = Callable[[], Callable[[list[Any]], list[Any]]]


@dataclass(frozen=True)
class RayOptions:
    address: str  # "auto", "local", or a cluster address (host:port, ray://host:port)
    workers: int | None = None  # actors in the pool (default: what the cluster's CPUs/GPUs fit)
    gpus_per_worker: float = 0.0
    cpus_per_worker: float = 1.0

    def __post_init__(self) -> None:
        if not self.address.strip():
            raise UsageError("RayOptions.address: give auto, local or a cluster address")
        if self.workers is not None and self.workers < 1:
            raise UsageError(f"RayOptions.workers {self.workers}: expected at least 1")
        if not (self.gpus_per_worker >= 0 and self.cpus_per_worker > 0):  # NaN fails both
            raise UsageError(
                f"RayOptions: gpus_per_worker {self.gpus_per_worker} must be >= 0 and "
                f"cpus_per_worker {self.cpus_per_worker} > 0"
            )


def parse_shard(value: str | None) -> tuple[int, int] | None:
    """``--shard i/n`` (this machine's share of a job split n ways) -> ``(i, n)``."""
    if not value:
        return None
    try:
        i, n = (int(x) for x in value.split("/"))
    except ValueError:
        raise UsageError(f"--shard {value!r}: expected i/n, e.g. 0/4") from None
    if not 0 <= i < n:
        raise UsageError(f"--shard {value}: expected i/n with 0 <= i < n")
    return i, n


def add_ray_options(parser: argparse.ArgumentParser) -> None:
    """The ``--ray`` flags every distributable command shares."""
    g = parser.add_argument_group("Ray (distributed runs; needs favakit[ray])")
    g.add_argument(
        "--ray",
        default=None,
        metavar="auto|local|ADDRESS",
        help="run as a Ray Data pipeline: local starts Ray on this machine; auto joins the "
        "running cluster ($RAY_ADDRESS or a local head) or else starts one; ADDRESS joins that "
        "cluster (host:6379 or ray://host:10001). Results are the same as without --ray",
    )
    g.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="with --ray: actors holding the model (default: as many as the cluster's CPUs, or "
        "GPUs with --gpus-per-worker, fit)",
    )
    g.add_argument(
        "--gpus-per-worker",
        type=non_negative,
        default=None,
        help="with --ray: GPUs per actor (e.g. 1; default 0)",
    )
    g.add_argument(
        "--cpus-per-worker",
        type=positive,
        default=None,
        help="with --ray: CPUs per actor (default 1)",
    )


#: the flags that only mean something with --ray
_RAY_ONLY = ("workers", "gpus_per_worker", "cpus_per_worker")


def ray_options(args: argparse.Namespace) -> RayOptions | None:
    """The parsed ``--ray`` flags, checked; None without ``--ray``."""
    address = getattr(args, "ray", None)
    if not address:
        given = [name for name in _RAY_ONLY if getattr(args, name, None) is not None]
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise UsageError(f"{flag} needs --ray (auto, local or a cluster address)")
        return None
    if getattr(args, "shard", None):
        raise UsageError("--shard and --ray split the work in two different ways: give one")
    gpus = 0.0 if args.gpus_per_worker is None else args.gpus_per_worker
    cpus = 1.0 if args.cpus_per_worker is None else args.cpus_per_worker
    return RayOptions(address, args.workers, gpus, cpus)


def _init(ray: Any, address: str) -> None:
    if ray.is_initialized():
        return
    # Ray's notices (token auth, progress bars off, a dataset finished) are not the user's
    # business on a run that works: errors only
    quiet = {"log_to_driver": False, "include_dashboard": False, "logging_level": logging.ERROR}
    if address == "local":
        ray.init(**quiet)
    elif address == "auto":
        try:
            ray.init(address="auto", **quiet)
        except ConnectionError:
            log.info("no running Ray cluster found; starting one on this machine")
            ray.init(**quiet)
    else:
        try:
            ray.init(address=address, **quiet)
        except ConnectionError as exc:
            raise UsageError(f"--ray {address}: cannot join that cluster ({exc})") from None


def _pool_size(ray: Any, opts: RayOptions) -> int:
    if opts.workers:
        return opts.workers
    resources = ray.cluster_resources()
    if opts.gpus_per_worker:
        gpus = resources.get("GPU", 0)
        if gpus < opts.gpus_per_worker:
            raise UsageError(
                f"--gpus-per-worker {opts.gpus_per_worker}: the cluster has {gpus:g} GPU(s)"
            )
        return max(1, int(gpus // opts.gpus_per_worker))
    return max(1, int(resources.get("CPU", 1) // opts.cpus_per_worker))


class WorkerError(FavakitError):
    """A favakit error raised in a Ray worker, raised again in the driver with its message and
    exit code (so the command ends with the same one line as without Ray)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class _Stage:
    """The Ray Data actor: builds the stage once, then maps each pickled chunk of items to its
    pickled results, ``("ok", results)``. A favakit error (a missing model, a bad row) travels
    back as ``("error", (message, exit code))`` instead: raised in the actor, Ray would restart
    an actor that fails in its constructor over and over, and hand the driver only a
    traceback's text."""

    def __init__(self, factory: bytes) -> None:
        from ray import cloudpickle

        self.error: tuple[str, int] | None = None
        try:
            self.fn = cloudpickle.loads(factory)()
        except FavakitError as exc:
            self.error = (str(exc), exc.exit_code)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        out = np.empty(len(batch["chunk"]), dtype=object)
        for j, blob in enumerate(batch["chunk"]):
            outcome: tuple[str, Any] = ("error", self.error)
            if self.error is None:
                items = pickle.loads(blob)
                try:
                    results = self.fn(items)
                except FavakitError as exc:
                    outcome = ("error", (str(exc), exc.exit_code))
                else:
                    if len(results) != len(items):
                        raise RuntimeError(
                            f"stage returned {len(results)} results for {len(items)} items"
                        )
                    outcome = ("ok", results)
            out[j] = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        return {"i": np.asarray(batch["i"]), "results": out}


def _ray_map(
    items: Sequence[Any],
    factory: StageFactory,
    opts: RayOptions,
    batch_size: int,
    progress: bool = False,
) -> Iterator[list[Any]]:
    """The results of each chunk of ``batch_size`` items, a list a chunk, in input order,
    computed by a pool of Ray actors that each call ``factory()`` once and then map chunks (the
    same chunks as :func:`map_chunks_in_order` without Ray, so batched models see the same
    batches).

    Consume it as a stream: each chunk's results can be written as soon as they are yielded, so
    a killed driver loses at most the chunks in flight. Stopping early (``break``) shuts the
    pipeline.
    """
    if not items:
        return
    ray = require("ray", "ray", "--ray")
    from ray import cloudpickle

    _init(ray, opts.address)
    for name in ("ray", "ray.data", "ray.data._internal.execution.streaming_executor"):
        logging.getLogger(name).setLevel(logging.ERROR)
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = progress
    if not progress:  # Ray Data says once that its bars are off; favakit shows its own progress
        from ray.util import log_once

        log_once("ray_data_progress_manager_disabled")
    ctx.print_on_execution_start = False
    workers = _pool_size(ray, opts)
    # the same chunks as the single-process run, one per block and per call
    chunks = [list(items[s : s + batch_size]) for s in range(0, len(items), batch_size)]
    rows = [{"i": k, "chunk": pickle.dumps(c, protocol=pickle.HIGHEST_PROTOCOL)}
            for k, c in enumerate(chunks)]  # fmt: skip
    ds = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
        _Stage,
        fn_constructor_args=(cloudpickle.dumps(factory),),  # type: ignore[no-untyped-call]
        batch_size=1,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=workers),
        num_cpus=opts.cpus_per_worker,
        num_gpus=opts.gpus_per_worker or None,
    )
    log.info("ray: %d item(s) in %d chunk(s) on %d worker(s)", len(items), len(rows), workers)
    pending: dict[int, Any] = {}
    nxt = done = 0
    for batch in ds.iter_batches(batch_size=None, batch_format="numpy", prefetch_batches=0):
        for i, blob in zip(batch["i"], batch["results"], strict=True):
            pending[int(i)] = blob
        while nxt in pending:  # hand results on in input order, whatever order they came in
            status, value = pickle.loads(pending.pop(nxt))
            if status == "error":
                raise WorkerError(*value)
            yield list(value)
            done += len(value)
            nxt += 1
    if done != len(items):
        raise RuntimeError(f"ray: {len(items) - done} of {len(items)} results never came back")


def map_in_order(
    items: Sequence[Any],
    factory: StageFactory,
    opts: RayOptions | None,
    batch_size: int,
    progress: bool = False,
) -> Iterator[Any]:
    """The result of every item, in input order (:func:`map_chunks_in_order`, one result at
    a time)."""
    for results in map_chunks_in_order(items, factory, opts, batch_size, progress):
        yield from results


def map_chunks_in_order(
    items: Sequence[Any],
    factory: StageFactory,
    opts: RayOptions | None,
    batch_size: int,
    progress: bool = False,
) -> Iterator[list[Any]]:
    """The results of each chunk of ``batch_size`` items, a list a chunk, in input order: with
    ``opts`` from a Ray actor pool (:func:`_ray_map`), without it from one stage in this
    process. The two paths run the same stage on the same chunks, so they give the same
    results. A chunk's results come at once, so progress counted by chunk gives a true rate: one
    counted by result would read the first of a chunk as having taken the whole chunk's time."""
    if opts is not None:
        yield from _ray_map(items, factory, opts, batch_size, progress)
        return
    if not items:
        return
    fn = factory()
    for start in range(0, len(items), batch_size):
        chunk = list(items[start : start + batch_size])
        results = fn(chunk)
        if len(results) != len(chunk):
            raise RuntimeError(f"stage returned {len(results)} results for {len(chunk)} items")
        yield list(results)
