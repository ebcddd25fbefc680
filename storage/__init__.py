"""SQLite storage: schema through migrations, queries and writes (sqlite-utils).

One import-time rule lives here, because every storage module is imported through this package
first: sqlite-utils imports numpy, when it is installed, only to map numpy's scalar types to
column types. prdigest never stores numpy values, but numpy is installed (matplotlib draws the
digest chart), and loading it made every one-shot command ~50–100 ms slower. So the import of
numpy *from sqlite-utils' own module* fails as if numpy were absent; any other import of numpy
(matplotlib's, a test's) is untouched.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importlib.abc itself costs ~15 ms at start: a finder needs only find_spec
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType


class _NumpyNotForSqliteUtils:
    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "numpy":
            return None
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_globals.get("__name__") == "sqlite_utils.db":
                raise ModuleNotFoundError("numpy is not loaded for sqlite-utils' type map", name="numpy")
            frame = frame.f_back  # type: ignore[assignment]
        return None


if not any(type(f).__name__ == _NumpyNotForSqliteUtils.__name__ for f in sys.meta_path):
    sys.meta_path.insert(0, _NumpyNotForSqliteUtils())
