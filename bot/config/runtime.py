"""Process-wide tuning shared by prdigest's entry points (the CLI and the chat servers)."""

from __future__ import annotations

import gc

# Young-generation threshold: a digest allocates ~100,000 short-lived objects; at CPython's
# default of 700 that is ~150 young collections per answer, at 10,000 about ten.
YOUNG_THRESHOLD = 10_000

_settled = False


def settle_heap(*, collect: bool = True) -> None:
    """Take what startup built out of the garbage collector's way (once per process).

    Imported modules, pydantic-core validators and the rule profile live as long as the process,
    yet every full collection walks them again: ~20 ms here, mostly pydantic-core's validator
    trees, landing in the middle of some answer every few hundred commands (it was the whole
    p99 of ``pr``: 2 ms median, 28 ms p99). ``gc.freeze`` moves them to the permanent generation,
    so collections visit only what commands allocate (measured in docs/benchmarks.md).

    ``collect`` first frees startup's garbage so that it is not frozen with the rest: worth ~20 ms
    once in a server, not in a one-shot CLI call, whose heap goes away when it exits.
    """
    global _settled
    if _settled:
        return
    _settled = True
    if collect:
        gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, 10, 10)
