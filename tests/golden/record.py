"""The demo's answers as one record, so that moving code can be shown to change none of them.

``answers(db_path)`` computes every answer the record holds on a classified demo cache:

- ``digest`` (plain and filtered by a module), ``risks`` (every kind and core-path), ``search``
  and ``pr`` for every demo week, in text, Markdown and JSON, in English and Chinese;
- the Slack blocks and Discord messages of the demo week's ``/digest`` (threaded and compact, as
  the chat apps send them) and of its Monday post (the reply a subscription's delivery builds,
  rendered as the posters render it; the chart's picture is left out, its description kept).

Regenerate after a deliberate change of output (then review the diff of what changed)::

    uv run --frozen python -m tests.golden.record
"""

from __future__ import annotations

import gzip
import json
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bot.chat.discord.render import render as discord_render
from bot.chat.slack.render import render as slack_render
from bot.delivery.deliverer import Deliverer
from bot.ingest.demo import DEMO_REPO, demo_data_path
from bot.ingest.load import import_file
from classify.periods import week_of
from classify.rules import Profile, load_profile
from classify.schedule import Due
from commands.model import Invocation, Reply
from commands.registry import Context, dispatch
from commands.render import render
from storage.db import connect
from storage.prs import PRStore
from storage.subscriptions import Subscription

RECORD = Path(__file__).with_name("answers.json.gz")
NOW = datetime(2026, 5, 11, 9, 0, tzinfo=UTC)  # the Monday after the demo's last full week
DEMO_WEEK = "2026-W19"
FORMATS = ("text", "markdown", "json")
LANGS = ("en", "zh")
PR_NUMBERS = (42121, 41745, 39280, 41684, 40894)
SEARCHES = (("fp8",), ("rocm", "kernel"), ("revert",))


def _weeks(store: PRStore) -> list[str]:
    span = store.merged_range(DEMO_REPO)
    assert span is not None
    zone = ZoneInfo("UTC")
    week, last, labels = week_of(span[0], zone), week_of(span[1], zone), []
    while week.start <= last.start:
        labels.append(week.label)
        week = week_of(week.end, zone)
    return labels


def _asks(weeks: list[str]) -> Iterator[tuple[str, tuple[str, ...]]]:
    for week in weeks:
        yield "digest", (week,)
        yield "digest", (week, "rocm")
        yield "risks", ("all", week)
        yield "risks", ("core-path", week)
        for words in SEARCHES:
            yield "search", (*words, week)
    for number in PR_NUMBERS:
        yield "pr", (str(number),)
    yield "help", ()


def _ask(ctx: Context, command: str, args: tuple[str, ...], lang: str, platform: str = "cli") -> Reply:
    inv = Invocation(
        command=command,
        args=args,
        repo=DEMO_REPO,
        lang=lang,
        now=NOW,
        platform=platform,  # type: ignore[arg-type]
    )
    return dispatch(inv, ctx)


def _chat(reply: Reply) -> dict[str, Any]:
    """What the chat apps send for a reply: Slack messages and Discord messages, both modes."""
    plain = replace(reply, files=[])
    return {
        "slack": {
            mode: [m.payload() for m in slack_render(plain, mode=mode)] for mode in ("thread", "compact")
        },
        "discord": {
            mode: [m.payload() for m in discord_render(plain, mode=mode)] for mode in ("thread", "compact")
        },
    }


def _monday_post(db_path: Path, profile: Profile, lang: str) -> dict[str, Any]:
    """The Monday post of a weekly subscription for the demo week, as a delivery builds it."""
    sub = Subscription(
        platform="slack",
        channel="C0123456789",
        repo=DEMO_REPO,
        anchor=date(2026, 5, 4),
        since=datetime(2026, 4, 1, tzinfo=UTC),
        lang=lang,
        id=1,
    )
    due = Due(0, date(2026, 5, 4), date(2026, 5, 11), NOW)
    deliverer = Deliverer(connect(db_path), profile, posters=lambda platform: None)  # type: ignore[arg-type,return-value]
    reply = deliverer.build(sub, due, NOW, chart=True)
    assert reply is not None
    return {
        "files": [{k: v for k, v in asdict(f).items() if k != "data"} for f in reply.files],
        **_chat(reply),
    }


def answers(db_path: Path, profile: Profile) -> dict[str, Any]:
    """Every recorded answer, keyed ``command args… | lang | format``."""
    ctx = Context(store=PRStore(connect(db_path)), profile=profile)
    out: dict[str, Any] = {}
    for command, args in _asks(_weeks(ctx.store)):
        for lang in LANGS:
            reply = _ask(ctx, command, args, lang)
            for fmt in FORMATS:
                out[f"{command} {' '.join(args)} | {lang} | {fmt}"] = render(reply, fmt)  # type: ignore[arg-type]
    for lang in LANGS:
        for platform in ("slack", "discord"):
            reply = _ask(ctx, "digest", (DEMO_WEEK,), lang, platform)
            out[f"/digest {DEMO_WEEK} | {lang} | {platform}"] = _chat(reply)[platform]
        out[f"monday {DEMO_WEEK} | {lang}"] = _monday_post(db_path, profile, lang)
    return out


def demo_cache(directory: Path, profile: Profile) -> Path:
    path = directory / "demo.db"
    store = PRStore(connect(path, create=True))
    import_file(store, profile, demo_data_path())
    store.db.conn.close()
    return path


def read_record() -> dict[str, Any]:
    with gzip.open(RECORD, "rt", encoding="utf-8") as f:
        record: dict[str, Any] = json.load(f)
    return record


def main() -> None:
    profile = load_profile()
    with tempfile.TemporaryDirectory() as tmp:
        record = answers(demo_cache(Path(tmp), profile), profile)
    # mtime=0: the same answers give the same bytes, so git sees a change only when one changed
    with gzip.GzipFile(RECORD, "wb", mtime=0) as raw:
        raw.write(json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True).encode())
    print(f"recorded {len(record)} answers in {RECORD}")


if __name__ == "__main__":
    main()
