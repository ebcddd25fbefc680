"""Rule profiles: TOML files that say how PRs are classified, loaded, validated and compiled once.

``load_profile`` is the one way to get a profile. It rejects anything doubtful — an unknown key
(typos must not pass silently), a bad glob or regex, a wrong type, a threshold out of range — with
one line naming the file, the key and the reason, e.g.::

    my.toml: modules.rocm.globs[2]: bad glob '[abc': unterminated character set

Compiling (``classify.profile_schema``: the TOML schema's pydantic models and the compiler) takes
longer than a one-shot command's whole answer, so the loader keeps what it compiled: in this
process, by the file's path and modification time, and between processes in the user's cache
directory, by the file's content (``classify.profile_cache``). Either is used only for the very
content it was compiled from; the compiled ``Profile`` itself is in ``classify.profile``.
"""

from __future__ import annotations

import copyreg
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from classify.profile import (
    _NAME,
    DEFAULT_PROFILE,
    LANGS,
    PROFILES_DIR,
    Compiled,
    KindRule,
    LearnedFrom,
    ModuleRule,
    Profile,
    ProfileError,
    RuleMatchers,
    classifier_code_hash,
    content_hash,
)

__all__ = [
    "DEFAULT_PROFILE",
    "LANGS",
    "PROFILES_DIR",
    "Compiled",
    "KindRule",
    "LearnedFrom",
    "ModuleRule",
    "Profile",
    "ProfileError",
    "RuleMatchers",
    "bundled_profiles",
    "classifier_code_hash",
    "content_hash",
    "effective_data",
    "load_profile",
    "profile_from_data",
    "profile_path",
    "reload_profile",
]


def bundled_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILES_DIR.glob("*.toml"))


def profile_path(name_or_path: str | Path | None = None) -> tuple[Path, str]:
    """The file a profile name or path means, and how errors name it: None → vllm, a bundled
    name, or a TOML file path (``ProfileError`` when it is not a readable file)."""
    if name_or_path is None or (isinstance(name_or_path, str) and not name_or_path.strip()):
        name_or_path = DEFAULT_PROFILE
    shown = str(name_or_path)
    bundled = PROFILES_DIR / f"{name_or_path}.toml"
    if isinstance(name_or_path, str) and _NAME.match(name_or_path) and bundled.is_file():
        path = bundled
        shown = path.name
    else:
        path = Path(name_or_path).expanduser()
    try:
        path.stat()
    except FileNotFoundError:
        hint = f" (bundled profiles: {', '.join(bundled_profiles())})" if not path.suffix else ""
        raise ProfileError(f"{shown}: no such file{hint}") from None
    except OSError as exc:
        raise ProfileError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    if not path.is_file():
        raise ProfileError(f"{shown}: not a file")
    return path, shown


def load_profile(name_or_path: str | Path | None = None) -> Profile:
    """Load, validate and compile a profile: None → vllm, a bundled name, or a TOML file path."""
    path, shown = profile_path(name_or_path)
    try:
        stat = path.stat()
    except OSError as exc:
        raise ProfileError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    profile = _LOADED.get(key)
    if profile is None:
        profile = _read_or_compile(Path(key[0]), shown)
        if len(_LOADED) >= 32:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[key] = profile
    return profile


# (resolved path, mtime, size) -> Profile: one compiled profile (and path cache) per file version
_LOADED: dict[tuple[str, int, int], Profile] = {}


def _compile(path: Path, shown: str) -> Profile:
    from classify.profile_schema import load_file

    return load_file(path, shown)


def _read_or_compile(path: Path, shown: str) -> Profile:
    """The profile compiled from ``path``'s current content: from the user's cache directory when
    compiled there before, else compiled now (and kept there for the next process)."""
    from classify import profile_cache  # pickle and friends: only when a profile is first loaded

    copyreg.pickle(profile_cache.CachedProfile, _reduce)
    found = profile_cache.read(path, lambda: _compile(path, shown))
    if found is not None:
        return found
    profile = _compile(path, shown)
    profile_cache.write(path, profile)
    return profile


def profile_from_data(data: Mapping[str, Any], *, source: Path, shown: str | None = None) -> Profile:
    """Validate and compile already-parsed TOML data (``shown`` names the file in errors)."""
    from classify.profile_schema import profile_from_data as compile_data

    return compile_data(data, source=source, shown=shown)


def reload_profile(source: str, version: str, content_hash: str) -> Profile:
    """The profile a worker process classifies with: the very one its parent loaded, or an error
    (results stored under the parent's ``content_hash`` must come from that content)."""
    profile = load_profile(Path(source))
    if profile.version != version:
        raise ProfileError(f"{source}: version changed from {version} to {profile.version} while in use")
    if profile.content_hash != content_hash:
        raise ProfileError(f"{source}: edited while in use (version {version} kept)")
    return profile


def identity(profile: Profile) -> tuple[str, str, str]:
    """What ``reload_profile`` needs to load ``profile`` again in another process."""
    return (str(profile.source), profile.version, profile.content_hash)


def _reduce(profile: Profile) -> tuple[Any, tuple[str, str, str]]:
    return (reload_profile, identity(profile))


# A profile is pickled as "the profile at this path with this content" (worker processes load it
# again through the loader): its compiled matchers and caches never travel.
copyreg.pickle(Profile, _reduce)


def effective_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """A profile's data as it is compiled: the tables it leaves out filled from the generic profile."""
    from classify.profile_schema import _with_generic_defaults

    return _with_generic_defaults(data)
