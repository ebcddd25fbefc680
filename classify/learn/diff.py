"""What a newly learned profile would change against the profile in use (``profile learn --diff``).

Compared as data, not as text: a module is the same module when it has the same id (what
subscriptions filter by); for each, what a reader notices — its label, where it matches (globs),
which title marks route to it; for kinds, the marks that decide them; for core paths, the globs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

MATCHING = ("globs", "only_globs", "all_globs", "exclude", "tags", "labels", "keywords", "patterns")
MARKS = ("tags", "prefixes", "labels")


def _listed(values: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(values[:limit])
    return shown + (f" (+{len(values) - limit} more)" if len(values) > limit else "")


def _changes(old: Mapping[str, Any], new: Mapping[str, Any], keys: Sequence[str]) -> list[str]:
    out: list[str] = []
    for key in keys:
        before, after = list(old.get(key, [])), list(new.get(key, []))
        added = [v for v in after if v not in before]
        removed = [v for v in before if v not in after]
        if added:
            out.append(f"{key} +{_listed(added)}")
        if removed:
            out.append(f"{key} -{_listed(removed)}")
    return out


def _where(spec: Mapping[str, Any]) -> str:
    globs = list(spec.get("globs", [])) + list(spec.get("only_globs", []))
    return _listed(globs, 3) if globs else "(no paths)"


def diff_profiles(current: Mapping[str, Any], learned: Mapping[str, Any]) -> list[str]:
    """Lines saying what ``learned`` changes against ``current`` (both profile data); empty when
    nothing that classifies a PR differs."""
    out: list[str] = []
    old_modules: Mapping[str, Any] = current.get("modules", {})
    new_modules: Mapping[str, Any] = learned.get("modules", {})
    for mid, spec in new_modules.items():
        if mid not in old_modules:
            out.append(f"+ module {mid} \u201c{spec.get('en', mid)}\u201d: {_where(spec)}")
    for mid, spec in old_modules.items():
        if mid not in new_modules:
            out.append(f"- module {mid} \u201c{spec.get('en', mid)}\u201d: {_where(spec)}")
    for mid, spec in new_modules.items():
        old = old_modules.get(mid)
        if old is None:
            continue
        changed = _changes(old, spec, MATCHING)
        if old.get("en") != spec.get("en"):
            changed.insert(
                0, f"label \u201c{old.get('en', mid)}\u201d \u2192 \u201c{spec.get('en', mid)}\u201d"
            )
        if changed:
            out.append(f"~ module {mid}: " + "; ".join(changed))
    old_kinds: Mapping[str, Any] = current.get("kinds", {})
    for name, spec in learned.get("kinds", {}).items():
        if name not in old_kinds:
            out.append(f"+ kind {name} \u201c{spec.get('en', name)}\u201d")
            continue
        changed = _changes(old_kinds[name], spec, MARKS)
        if changed:
            out.append(f"~ kind {name}: " + "; ".join(changed))
    for name in old_kinds:
        if name not in learned.get("kinds", {}):
            out.append(f"- kind {name}")
    out += _core(current, learned)
    return out


def _core(current: Mapping[str, Any], learned: Mapping[str, Any]) -> list[str]:
    old = current.get("flags", {}).get("core-path", {})
    new = learned.get("flags", {}).get("core-path", {})
    if old.get("enabled", True) != new.get("enabled", True):
        return [f"~ core paths: {'on' if new.get('enabled', True) else 'off (no CODEOWNERS)'}"]
    changed = _changes(old, new, ("globs",))
    return [f"~ core paths: {'; '.join(changed)}"] if changed else []
