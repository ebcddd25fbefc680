"""Turning what a person typed into a subscription, the same way in the CLI and in chat.

``build`` and ``changes`` take plain strings (``--at "mon 09:00"``, ``--tz Europe/Berlin``,
``--modules rocm,kernel`` …) and return a validated ``Subscription`` or the fields to change,
raising ``UsageError`` with a locale key for anything wrong — so nothing invalid is ever stored,
and the message reaches the user in their language. ``describe`` is the one-line summary that
``subscriptions`` lists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from classify.models import FLAG_KINDS
from classify.rules import Profile
from commands.model import UsageError
from commands.schedule import describe_at, first_anchor, parse_at
from storage.subscriptions import (
    LANGS,
    LAYOUTS,
    MATCH_MODES,
    MAX_EVERY_WEEKS,
    PROSE_MODES,
    QUIET_MODES,
    Subscription,
    SubscriptionError,
    check_timezone,
    validate,
)

SETTABLE = ("repo", "at", "tz", "every", "lang", "layout", "quiet", "modules", "flags", "match", "prose")
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[,\s]+", text.strip()) if w]


def modules(text: str, profile: Profile) -> tuple[str, ...]:
    out: list[str] = []
    for word in _words(text):
        module = profile.resolve_module(word)
        if module is None:
            known = ", ".join(list(profile.modules)[:12])
            raise UsageError("error.module", word=repr(word[:40]), known=known)
        if module not in out:
            out.append(module)
    return tuple(out)


def flags(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for word in _words(text.lower()):
        if word not in FLAG_KINDS:
            raise UsageError("error.risk_kind", word=repr(word[:40]), kinds=", ".join(FLAG_KINDS))
        if word not in out:
            out.append(word)
    return tuple(out)


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value.lower() not in allowed:
        raise UsageError("error.sub_choice", name=name, word=repr(value[:30]), allowed=", ".join(allowed))
    return value.lower()


def _every(text: str) -> int:
    if not text.strip().isdigit() or not 1 <= int(text) <= MAX_EVERY_WEEKS:
        raise UsageError("error.sub_every", word=repr(text[:20]), most=MAX_EVERY_WEEKS)
    return int(text)


def _tz(text: str) -> str:
    try:
        return check_timezone(text.strip())
    except SubscriptionError:
        raise UsageError("error.sub_tz", word=repr(text[:60])) from None


def _repo(text: str) -> str:
    if not _REPO.match(text.strip()):
        raise UsageError("error.repo", word=repr(text[:60]))
    return text.strip()


def changes(values: Mapping[str, str], profile: Profile) -> dict[str, Any]:
    """The subscription fields that ``values`` (SETTABLE names → typed text) set."""
    out: dict[str, Any] = {}
    for name, text in values.items():
        if name not in SETTABLE:
            raise UsageError("error.sub_set", word=repr(name[:30]), allowed=", ".join(SETTABLE))
        if name == "repo":
            out["repo"] = _repo(text)
        elif name == "at":
            out["weekday"], out["at"] = parse_at(text)
        elif name == "tz":
            out["timezone"] = _tz(text)
        elif name == "every":
            out["every_weeks"] = _every(text)
        elif name == "lang":
            out["lang"] = _choice("lang", text, LANGS)
        elif name == "layout":
            out["layout"] = _choice("layout", text, LAYOUTS)
        elif name == "quiet":
            out["quiet"] = _choice("quiet", text, QUIET_MODES)
        elif name == "modules":
            out["modules"] = modules(text, profile)
        elif name == "flags":
            out["flags"] = flags(text)
        elif name == "match":
            out["match"] = _choice("match", text, MATCH_MODES)
        elif name == "prose":
            out["prose"] = _choice("prose", text, PROSE_MODES)
    if out.get("match", "any") != "any" and not out.get("modules", True):
        raise UsageError("error.sub_match_needs_modules", mode=out["match"])
    return out


def build(
    platform: str,
    channel: str,
    values: Mapping[str, str],
    profile: Profile,
    *,
    now: datetime,
    created_by: str = "",
    defaults: Mapping[str, str] | None = None,
) -> Subscription:
    """A new subscription from typed values (``defaults`` fill what was not given: the
    configured repository, zone and language)."""
    merged = {**(defaults or {}), **{k: v for k, v in values.items() if v not in (None, "")}}
    fields = changes(merged, profile)
    if "repo" not in fields:
        raise UsageError("error.sub_repo")
    if fields.get("match", "any") != "any" and not fields.get("modules"):
        raise UsageError("error.sub_match_needs_modules", mode=fields["match"])
    zone = ZoneInfo(fields.get("timezone", "UTC"))
    sub = Subscription(
        platform=platform,
        channel=channel,
        anchor=first_anchor(now, zone, fields.get("every_weeks", 1)),
        since=now,
        created_by=created_by,
        **fields,
    )
    try:
        return validate(sub)
    except SubscriptionError as exc:
        raise UsageError("error.sub_invalid", reason=str(exc)) from None


def describe(sub: Subscription) -> str:
    """``#3 slack:C0123 vllm-project/vllm · mon 09:00 Europe/Berlin · rocm (any) + core-path · zh``."""
    parts = [f"#{sub.id} {sub.target} {sub.repo}", describe_at(sub)]
    view = ""
    if sub.modules:
        view = ", ".join(sub.modules) + ("" if sub.match == "any" else f" ({sub.match})")
    if sub.flags:
        view += (" + " if view else "") + ", ".join(sub.flags)
    parts.append(view or "all PRs")
    parts.append(
        f"{sub.lang}, {sub.layout}, quiet week: {sub.quiet}" + (", prose off" if sub.prose == "off" else "")
    )
    if sub.paused:
        parts.append("PAUSED")
    return " · ".join(parts)
