"""The compiled rule profile, kept between runs in the user's cache directory.

Compiling a profile (validating the TOML, building one regex per glob set and the keyword index)
took 33–55 ms of every one-shot command's start. The compiled ``Profile`` is pickled under a key
made of everything it is compiled from — the profile file's bytes, the generic profile it borrows
defaults from, the classifier's code (``classifier_code_hash``) and the Python and pydantic
versions — so an edited profile or an upgraded prdigest simply misses. A cache file that cannot be
read, is corrupt or holds something else is ignored and rewritten; a cache directory that cannot
be written is not used. Errors in the profile itself are raised by ``load_profile`` as before.

The file holds what a read command asks of a profile (its name, version and content hash, module
and kind labels, the words that mean a module, the key-PR share) as plain data, and — each pickled
apart and unpickled at its first use — the flag settings, the score settings (instances of the
TOML schema's pydantic models) and the compiled matchers. So ``prdigest risks`` or ``search``
never builds the schema's classes (``classify.profile_schema``), ``pr`` only the ``[score]``
table's (``classify.score_spec``: whether the week's storylines change which PRs are key), and
classifying loads the rest (~1 ms).

Where: ``$XDG_CACHE_HOME/prdigest`` (default ``~/.cache/prdigest``), files ``profile-KEY.pickle``.
Like every pickle it is trusted input: it lives in the user's own cache directory.
"""

from __future__ import annotations

import contextlib
import copyreg
import dataclasses
import hashlib
import importlib.util
import io
import os
import pickle
import re
import sys
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from classify.rules import (
    PROFILES_DIR,
    Profile,
    ProfileError,
    classifier_code_hash,
    load_profile,
    profile_path,
)

FORMAT = 2
HEAVY = ("flags", "score", "compiled")
"""the fields unpickled each at its first use (instances of the schema's pydantic models, and the
compiled matchers)"""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "prdigest"


def _mapping_proxy(values: dict[Any, Any]) -> Mapping[Any, Any]:
    return types.MappingProxyType(values)


class LazyPattern:
    """A regular expression compiled at its first use: most commands never classify, and
    compiling the profile's ~90 patterns is most of unpickling it (~10 ms). After the first use
    the compiled pattern's methods are bound on the instance, so matching costs what it did."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(self.pattern, self.flags)
        for method in ("match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"):
            self.__dict__[method] = getattr(compiled, method)
        self.__dict__["groups"] = compiled.groups
        self.__dict__["groupindex"] = compiled.groupindex
        return getattr(compiled, name)

    def __reduce__(self) -> tuple[Any, tuple[str | bytes, int]]:
        return re.compile, (self.pattern, self.flags)


def _reduce_pattern(pattern: Any) -> tuple[Any, tuple[str | bytes, int]]:
    return LazyPattern, (pattern.pattern, pattern.flags)


def _reduce_proxy(proxy: types.MappingProxyType[Any, Any]) -> tuple[Any, tuple[dict[Any, Any]]]:
    return _mapping_proxy, (dict(proxy),)


def _pydantic_version_file() -> bytes:
    """pydantic's ``version.py`` (which pins pydantic-core's), read without importing pydantic:
    the cached flag and score settings are pydantic models, whose pickled form is pydantic's business."""
    spec = importlib.util.find_spec("pydantic")
    if spec is None or not spec.submodule_search_locations:
        return b""
    return (Path(next(iter(spec.submodule_search_locations))) / "version.py").read_bytes()


def cache_key(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in (
        f"{FORMAT}|{sys.version}|{path.resolve()}".encode(),
        _pydantic_version_file(),
        path.read_bytes(),
        (PROFILES_DIR / "generic.toml").read_bytes(),
        classifier_code_hash().encode(),
    ):
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def _pickle(value: object) -> bytes:
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = copyreg.dispatch_table.copy()  # type: ignore[misc]
    pickler.dispatch_table[types.MappingProxyType] = _reduce_proxy  # type: ignore[index]
    pickler.dispatch_table[re.Pattern] = _reduce_pattern  # type: ignore[index]
    pickler.dump(value)
    return buf.getvalue()


def _dumps(profile: Profile) -> bytes:
    fields = {f.name: getattr(profile, f.name) for f in dataclasses.fields(profile)}
    lazy = {name: _pickle(fields.pop(name)) for name in HEAVY}
    return _pickle({"light": fields, "lazy": lazy})


class CachedProfile(Profile):
    """A ``Profile`` read from the cache: every field but ``HEAVY`` at once, each of those at its
    first use (``pr`` asks ``score``, which builds the ``[score]`` table's three classes alone).

    A field that cannot be read (a damaged file) is compiled again from the profile's file
    instead, provided the file still has the content this profile was cached from."""

    def __init__(self, light: dict[str, Any], lazy: dict[str, bytes]) -> None:
        for name, value in light.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_lazy", lazy)

    def __getattr__(self, name: str) -> Any:
        blob = self.__dict__.get("_lazy", {}).get(name) if name in HEAVY else None
        if blob is None:
            raise AttributeError(name)
        try:
            value = pickle.loads(blob)
        except Exception:  # a damaged field is compiled again, never a traceback
            fresh = load_profile(self.source)
            if fresh.content_hash != self.content_hash:
                raise ProfileError(
                    f"{self.source}: edited while in use (version {self.version} kept)"
                ) from None
            value = getattr(fresh, name)
        object.__setattr__(self, name, value)
        return value


def _loads(blob: bytes) -> Profile | None:
    try:
        outer = pickle.loads(blob)
        if not isinstance(outer, dict) or set(outer) != {"light", "lazy"}:
            return None
        light, lazy = outer["light"], outer["lazy"]
        wanted = {f.name for f in dataclasses.fields(Profile)} - set(HEAVY)
        if not isinstance(light, dict) or set(light) != wanted:
            return None
        if not isinstance(lazy, dict) or set(lazy) != set(HEAVY):
            return None
        if not all(isinstance(v, bytes) for v in lazy.values()):
            return None
        return CachedProfile(light, lazy)
    except Exception:  # a corrupt or foreign file is a miss, never a traceback
        return None


_IN_MEMORY: dict[tuple[str, int, int], Profile] = {}
"""profiles this process has loaded, by file version: each repository's profile is asked for
question after question (``bot.config.repo_profiles``), and the default one is often the same"""


def cached_profile(name_or_path: str | Path | None = None) -> Profile:
    """``load_profile(name_or_path)``, from the cache directory when compiled before (and from
    memory when this process loaded that version of the file already)."""
    path, _ = profile_path(name_or_path)  # ProfileError for a missing file, as load_profile
    try:
        stat = path.stat()
        version = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    except OSError:
        return load_profile(name_or_path)
    hit = _IN_MEMORY.get(version)
    if hit is None:
        hit = _from_disk(name_or_path, path)
        if len(_IN_MEMORY) >= 32:
            _IN_MEMORY.pop(next(iter(_IN_MEMORY)))
        _IN_MEMORY[version] = hit
    return hit


def _from_disk(name_or_path: str | Path | None, path: Path) -> Profile:
    try:
        key = cache_key(path)
    except OSError:
        return load_profile(name_or_path)
    file = cache_dir() / f"profile-{key}.pickle"
    with contextlib.suppress(OSError):
        profile = _loads(file.read_bytes())
        if profile is not None:
            return profile
    profile = load_profile(name_or_path)
    _store(file, profile)
    return profile


def _store(file: Path, profile: Profile) -> None:
    try:
        blob = _dumps(profile)
        file.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only when a profile is compiled: ~3 ms of every start otherwise (shutil, lzma)

        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".profile-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(blob)
            os.replace(tmp, file)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    except Exception:  # a read-only home, a full disk, an unpicklable matcher: just no cache
        return


class ProfileChoice(Protocol):
    """The two settings that choose the rule profile (``Settings`` and ``ReadSettings`` have both)."""

    @property
    def prdigest_rules(self) -> Path | None: ...

    @property
    def prdigest_profile(self) -> str: ...


def active_profile(settings: ProfileChoice) -> Profile:
    """The rule profile in force: ``PRDIGEST_RULES`` (a file) wins over ``PRDIGEST_PROFILE`` (a bundled name).

    Raises ``classify.rules.ProfileError`` naming the variable that chose it, then the file, key
    and reason: "PRDIGEST_PROFILE: rule profile rejected: nosuch: no such file (bundled …)".
    """
    from classify.rules import ProfileError

    try:
        return cached_profile(settings.prdigest_rules or settings.prdigest_profile)
    except ProfileError as exc:
        variable = "PRDIGEST_RULES" if settings.prdigest_rules else "PRDIGEST_PROFILE"
        raise ProfileError(f"{variable}: rule profile rejected: {exc}") from None
