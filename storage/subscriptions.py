"""Subscriptions: which channel gets which scheduled digest, when, and how.

A subscription names a platform and channel, a repository, an optional module filter with its
match mode (``any``: a PR touching any listed module; ``all``: every listed module; ``only``:
every module of the PR is listed) and flag filter (a PR with any listed flag is included as
well), a weekday and local time (default Monday 09:00) in an IANA time zone, every how many
weeks, the language, the layout (a lead message with the sections in its thread, or a single
message), what a quiet week gets (a one-line post or nothing) and whether it is paused.

``anchor`` is the local Monday where the first period starts (every-N-weeks periods are counted
from it); ``since`` is the moment from which deliveries are owed: a period due before it (before
the subscription existed, or while it was paused) is neither posted nor reported as missed.

Values are checked here (``SubscriptionError``) as well as by the schema's CHECK constraints, so
nothing invalid is ever stored whichever front end wrote it. Writes take ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, Literal, cast, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from storage.prs import iso, parse_iso

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    import sqlite_utils


def transaction(db: sqlite_utils.Database) -> AbstractContextManager[sqlite_utils.Database]:
    """The one write transaction (``storage.sync_state.transaction``), imported when first
    needed: the CLI registers the subscription commands at every start, and ``prdigest --help``
    must not load SQLite for them."""
    from storage.sync_state import transaction as write

    return write(db)


Match = Literal["any", "all", "only"]
Layout = Literal["thread", "single"]
Quiet = Literal["line", "silent"]
Prose = Literal["on", "off"]
MATCH_MODES: tuple[str, ...] = get_args(Match)
LAYOUTS: tuple[str, ...] = get_args(Layout)
QUIET_MODES: tuple[str, ...] = get_args(Quiet)
PROSE_MODES: tuple[str, ...] = get_args(Prose)
LANGS = ("en", "zh")
MAX_EVERY_WEEKS = 52
_AT = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_CHANNEL = re.compile(r"^[A-Za-z0-9_.-]{1,80}$")


class SubscriptionError(ValueError):
    """A subscription value is invalid; the message names the field and the accepted values."""


@dataclass(frozen=True)
class Subscription:
    platform: str
    channel: str
    repo: str
    anchor: date
    since: datetime
    modules: tuple[str, ...] = ()
    match: Match = "any"
    flags: tuple[str, ...] = ()
    weekday: int = 0  # Monday = 0 … Sunday = 6, as datetime.weekday()
    at: str = "09:00"
    every_weeks: int = 1
    timezone: str = "UTC"
    lang: str = "en"
    layout: Layout = "thread"
    quiet: Quiet = "line"
    paused: bool = False
    prose: Prose = "on"  # off: computed text even where a language model is configured
    created_by: str = ""
    id: int | None = None
    created_at: datetime | None = field(default=None, compare=False)
    updated_at: datetime | None = field(default=None, compare=False)

    @property
    def target(self) -> str:
        """``slack:C0123456789``: how the CLI and logs name the channel."""
        return f"{self.platform}:{self.channel}"

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def hour_minute(self) -> tuple[int, int]:
        hour, minute = self.at.split(":")
        return int(hour), int(minute)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (``prdigest subscriptions --format json``)."""
        out = asdict(self)
        out["modules"] = list(self.modules)
        out["flags"] = list(self.flags)
        out["anchor"] = self.anchor.isoformat()
        for name in ("since", "created_at", "updated_at"):
            value = getattr(self, name)
            out[name] = iso(value) if value else None
        if self.prose == "on":  # the default, said only when changed (older answers stay as they were)
            del out["prose"]
        return out


def check_timezone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise SubscriptionError(
            f"unknown time zone {name[:60]!r}; use an IANA name like Europe/Berlin"
        ) from None
    return name


def check_at(text: str) -> str:
    if not _AT.match(text):
        raise SubscriptionError(f"time {text[:20]!r} is not HH:MM between 00:00 and 23:59")
    return text


def validate(sub: Subscription) -> Subscription:
    """The subscription unchanged, or ``SubscriptionError`` naming the first bad field."""
    if not sub.platform or not re.match(r"^[a-z]+$", sub.platform):
        raise SubscriptionError(f"platform {sub.platform[:20]!r} is not a platform name")
    if not _CHANNEL.match(sub.channel):
        raise SubscriptionError(f"channel {sub.channel[:40]!r} is not a channel id")
    if not _REPO.match(sub.repo):
        raise SubscriptionError(f"repository {sub.repo[:60]!r} is not OWNER/NAME")
    if sub.match not in MATCH_MODES:
        raise SubscriptionError(f"match {sub.match!r}: use one of {', '.join(MATCH_MODES)}")
    if sub.layout not in LAYOUTS:
        raise SubscriptionError(f"layout {sub.layout!r}: use one of {', '.join(LAYOUTS)}")
    if sub.quiet not in QUIET_MODES:
        raise SubscriptionError(f"quiet {sub.quiet!r}: use one of {', '.join(QUIET_MODES)}")
    if sub.prose not in PROSE_MODES:
        raise SubscriptionError(f"prose {sub.prose!r}: use one of {', '.join(PROSE_MODES)}")
    if sub.lang not in LANGS:
        raise SubscriptionError(f"language {sub.lang!r}: use one of {', '.join(LANGS)}")
    if not 0 <= sub.weekday <= 6:
        raise SubscriptionError(f"weekday {sub.weekday} is not 0 (Monday) … 6 (Sunday)")
    if not 1 <= sub.every_weeks <= MAX_EVERY_WEEKS:
        raise SubscriptionError(f"every {sub.every_weeks} weeks: use 1 … {MAX_EVERY_WEEKS}")
    if sub.anchor.weekday() != 0:
        raise SubscriptionError(f"anchor {sub.anchor} is not a Monday")
    if sub.since.tzinfo is None:
        raise SubscriptionError("since must be an aware datetime")
    check_at(sub.at)
    check_timezone(sub.timezone)
    return sub


_COLUMNS = (
    "platform, channel, repo, modules, match, flags, weekday, at, every_weeks, timezone, lang, "
    "layout, quiet, paused, anchor, since, created_by, prose"
)
_SELECT = f"SELECT id, {_COLUMNS}, created_at, updated_at FROM subscriptions"


def _values(sub: Subscription) -> tuple[Any, ...]:
    return (
        sub.platform,
        sub.channel,
        sub.repo,
        json.dumps(list(sub.modules)),
        sub.match,
        json.dumps(list(sub.flags)),
        sub.weekday,
        sub.at,
        sub.every_weeks,
        sub.timezone,
        sub.lang,
        sub.layout,
        sub.quiet,
        int(sub.paused),
        sub.anchor.isoformat(),
        iso(sub.since),
        sub.created_by,
        sub.prose,
    )


def _row(row: tuple[Any, ...]) -> Subscription:
    (id_, platform, channel, repo, modules, match, flags, weekday, at, every, tz, lang, layout, quiet) = row[
        :14
    ]
    paused, anchor, since, created_by, prose, created_at, updated_at = row[14:]
    return Subscription(
        id=id_,
        platform=platform,
        channel=channel,
        repo=repo,
        modules=tuple(json.loads(modules)),
        match=cast(Match, match),
        flags=tuple(json.loads(flags)),
        weekday=weekday,
        at=at,
        every_weeks=every,
        timezone=tz,
        lang=lang,
        layout=cast(Layout, layout),
        quiet=cast(Quiet, quiet),
        paused=bool(paused),
        anchor=date.fromisoformat(anchor),
        since=cast(datetime, parse_iso(since)),
        created_by=created_by,
        prose=cast(Prose, prose),
        created_at=parse_iso(created_at),
        updated_at=parse_iso(updated_at),
    )


EDITABLE = frozenset(
    f.name
    for f in fields(Subscription)
    if f.name not in {"id", "created_at", "updated_at", "platform", "channel", "created_by"}
)


class SubscriptionStore:
    """The ``subscriptions`` table."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db

    def add(self, sub: Subscription, *, now: datetime | None = None) -> Subscription:
        validate(sub)
        stamp = iso(now or datetime.now(UTC))
        with transaction(self.db):
            cursor = self.db.execute(
                f"INSERT INTO subscriptions ({_COLUMNS}, created_at, updated_at) "
                f"VALUES ({', '.join('?' * 20)})",
                (*_values(sub), stamp, stamp),
            )
            new_id = cursor.lastrowid
        got = self.get(int(new_id or 0))
        assert got is not None
        return got

    def get(self, sub_id: int) -> Subscription | None:
        row = self.db.execute(f"{_SELECT} WHERE id = ?", (sub_id,)).fetchone()
        return _row(row) if row else None

    def all(self, *, platform: str | None = None, channel: str | None = None) -> list[Subscription]:
        where, args = [], []
        if platform is not None:
            where.append("platform = ?")
            args.append(platform)
        if channel is not None:
            where.append("channel = ?")
            args.append(channel)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        return [_row(r) for r in self.db.execute(f"{_SELECT}{clause} ORDER BY id", args).fetchall()]

    def active(self) -> list[Subscription]:
        return [s for s in self.all() if not s.paused]

    def update(self, sub_id: int, *, now: datetime | None = None, **changes: Any) -> Subscription:
        """Change editable fields (``KeyError`` for an unknown id). Resuming a paused subscription
        moves ``since`` to now: periods that fell due while it was paused are not owed."""
        unknown = set(changes) - EDITABLE
        if unknown:
            raise SubscriptionError(f"cannot change {', '.join(sorted(unknown))}")
        moment = now or datetime.now(UTC)
        with transaction(self.db):
            current = self.get(sub_id)
            if current is None:
                raise KeyError(sub_id)
            if current.paused and changes.get("paused") is False and "since" not in changes:
                changes["since"] = moment
            new = validate(replace(current, **changes))
            assignments = ", ".join(f"{c.strip()} = ?" for c in _COLUMNS.split(","))
            self.db.execute(
                f"UPDATE subscriptions SET {assignments}, updated_at = ? WHERE id = ?",
                (*_values(new), iso(moment), sub_id),
            )
        got = self.get(sub_id)
        assert got is not None
        return got

    def remove(self, sub_id: int) -> bool:
        with transaction(self.db):
            cursor = self.db.execute("DELETE FROM subscriptions WHERE id = ?", (sub_id,))
        return cursor.rowcount > 0
