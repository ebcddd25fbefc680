"""The program as the user invoked it, for the commands a terminal answer prints.

A hint must run when copied. After the Quick start (``.venv/bin/uv run prdigest demo``) the shell
has no ``prdigest`` on its PATH, so "next: prdigest risks …" failed with "command not found";
printed as ``.venv/bin/prdigest risks …`` it runs. Where ``prdigest`` on the PATH is this very
program (an activated environment, pipx, uv tool), the short name is the one to print.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path

NAME = "prdigest"


def _shown(path: str) -> str:
    """``path`` relative to the working directory when it lies under it (``.venv/bin/prdigest``)."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    if relative.startswith(".."):
        return path
    return relative if os.sep in relative else f".{os.sep}{relative}"


def _which(name: str) -> str | None:
    import shutil  # here, not at the top: shutil brings bz2 and lzma (~3.5 ms of every start)

    return shutil.which(name)


@lru_cache(maxsize=1)
def program(argv0: str | None = None) -> str:
    """``prdigest``, or the path that started this process when that name would not find it."""
    started = argv0 if argv0 is not None else sys.argv[0]
    if not started or started.startswith("-"):
        return NAME
    if Path(started).stem != NAME:  # a test runner or a script importing the CLI: no program of its own
        return NAME
    # `uv run` puts the environment's bin directory first on the PATH of the process it starts,
    # not of the user's shell: there the name finds nothing, the path does
    on_path = None if "UV_RUN_RECURSION_DEPTH" in os.environ else _which(NAME)
    here = Path(started)
    if on_path is not None and here.exists() and Path(on_path).resolve() == here.resolve():
        return NAME
    if os.sep not in started and on_path is not None:  # run by its name: the PATH found it
        return NAME
    return _shown(str(here.absolute())) if here.exists() else NAME
