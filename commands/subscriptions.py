"""``subscribe``, ``unsubscribe``, ``subscriptions`` and ``preview``: scheduled digests from chat.

A subscription belongs to the channel the command was typed in (``Invocation.channel``).
Changing subscriptions is for admins only (``admin_only``: the front end decides ``is_admin`` at
run time — ``PRDIGEST_ADMINS``, Slack workspace admins and owners, Discord members with Manage
Server); listing and previewing are for everyone. The values are typed as ``key=value`` words
(``/subscribe at="mon 09:00" tz=Europe/Berlin modules=rocm flags=core-path``) or, on Discord, as
typed options of the same names, and parsed by ``commands.subscription_spec`` exactly as the
terminal's ``prdigest subscribe`` parses its options.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from commands import params as P
from commands.context import Context
from commands.invocations import subscription_digest
from commands.locale import t
from commands.model import Block, Bullet, BulletList, Invocation, Paragraph, Reply, UsageError
from commands.spec import REGISTRY, answer, command
from storage.prs import iso

if TYPE_CHECKING:
    from storage.deliveries import DeliveryStore
    from storage.subscriptions import Subscription

# The schedule, subscription and delivery code is imported by the commands that run, not with the
# registrations: `prdigest help` lists these commands (their usage lines) without loading it.

# key, what it takes (usage), help key
SETTINGS: tuple[tuple[str, str, str], ...] = (
    ("at", "WHEN", "param.sub_at"),
    ("tz", "ZONE", "param.sub_tz"),
    ("every", "N", "param.sub_every"),
    ("modules", "LIST", "param.sub_modules"),
    ("match", "any|all|only", "param.match"),
    ("flags", "LIST", "param.sub_flags"),
    ("lang", "en|zh", "param.sub_lang"),
    ("layout", "thread|single", "param.sub_layout"),
    ("quiet", "line|silent", "param.sub_quiet"),
    ("repo", "OWNER/NAME", "param.repo"),
    ("prose", "on|off", "param.sub_prose"),
)
# settings taken but not listed in usage lines and help (``Param.listed``): they mean something
# only where a language model is configured (docs/prose.md)
UNLISTED = frozenset({"prose"})


def _setting(key: str, metavar: str, help_key: str) -> P.Param:
    listed = key not in UNLISTED
    prefix = f"{key}="

    def claims(word: str) -> bool:
        return word.lower().startswith(prefix)

    def parse(word: str, scope: P.Scope) -> str:
        return word[len(prefix) :] if claims(word) else word

    return P.Param(
        name=key, metavar=f"{key}={metavar}", help=help_key, claims=claims, parse=parse, listed=listed
    )


def _sub_id(*, required: bool = False) -> P.Param:
    def parse(word: str, scope: P.Scope) -> int:
        text = word.strip().removeprefix("#")
        if not text.isdigit() or not 0 < int(text) < 2**31:
            raise UsageError("error.sub_id", word=P.quoted(word))
        return int(text)

    return P.Param(
        name="id",
        metavar="ID",
        help="param.sub_id",
        kind="integer",
        required=required,
        parse=parse,
        claims=P.number_shaped,  # "-5", "0", "#99999999999" are ids refused as such, not "unexpected"
    )


def _here(inv: Invocation) -> str:
    if not inv.channel:
        raise UsageError("error.sub_channel")
    return inv.channel


def _status(ledger: DeliveryStore, sub: Subscription, lang: str) -> str:
    assert sub.id is not None
    recent = ledger.for_subscription(sub.id, limit=1)
    if not recent:
        return t(lang, "sub.no_delivery")
    d = recent[0]
    text = t(lang, "sub.last", period=d.period_start, state=d.state)
    return text + (f" — {d.reason}" if d.reason and d.state != "posted" else "")


@command(
    "subscribe",
    params=tuple(_setting(*s) for s in SETTINGS),
    summary="cmd.subscribe",
    examples=(
        "subscribe",
        'subscribe at="mon 09:00" tz=Europe/Berlin lang=zh',
        "subscribe modules=rocm flags=core-path match=any",
    ),
    admin_only=True,
    postable=False,
    cli=False,
)
def subscribe(inv: Invocation, ctx: Context, **values: str | None) -> Reply:
    from classify.schedule import next_due
    from commands.subscription_spec import build, describe
    from storage.subscriptions import SubscriptionStore

    channel = _here(inv)
    given = {k: v for k, v in values.items() if v}
    defaults = {"tz": inv.timezone, "lang": inv.lang}
    if "repo" not in given:
        defaults["repo"] = ctx.resolve_repo(inv)
    sub = build(
        inv.platform, channel, given, ctx.profile, now=inv.now, created_by=inv.user or "", defaults=defaults
    )
    stored = SubscriptionStore(ctx.store.db).add(sub, now=inv.now)
    due = next_due(stored, inv.now).due
    blocks: list[Block] = [
        Paragraph(text=describe(stored)),
        Paragraph(text=t(inv.lang, "sub.next", when=iso(due))),
    ]
    return Reply(
        command="subscribe",
        title=t(inv.lang, "sub.created", id=stored.id),
        blocks=blocks,
        data={"subscription": stored.as_dict(), "next_due": iso(due)},
    )


@command(
    "unsubscribe",
    params=(_sub_id(required=True),),
    summary="cmd.unsubscribe",
    examples=("unsubscribe 3",),
    admin_only=True,
    postable=False,
    cli=False,
)
def unsubscribe(inv: Invocation, ctx: Context, *, id: int) -> Reply:
    from storage.subscriptions import SubscriptionStore

    store = SubscriptionStore(ctx.store.db)
    sub = store.get(id)
    if sub is None or sub.platform != inv.platform:
        raise UsageError("error.sub_unknown", id=id)
    store.remove(id)
    return Reply(
        command="unsubscribe",
        title=t(inv.lang, "sub.removed", id=id, target=sub.target),
        data={"removed": id},
    )


@command(
    "subscriptions",
    params=(),
    summary="cmd.subscriptions",
    examples=("subscriptions",),
    postable=False,
    cli=False,
)
def subscriptions(inv: Invocation, ctx: Context) -> Reply:
    from classify.schedule import next_due
    from commands.subscription_spec import describe
    from storage.deliveries import DeliveryStore
    from storage.subscriptions import SubscriptionStore

    store = SubscriptionStore(ctx.store.db)
    subs = store.all(platform=inv.platform, channel=inv.channel) if inv.channel else store.all()
    ledger = DeliveryStore(ctx.store.db)
    if not subs:
        return Reply(command="subscriptions", title=t(inv.lang, "sub.none"), data={"subscriptions": []})
    items = []
    rows: list[dict[str, Any]] = []
    for s in subs:
        due = None if s.paused else iso(next_due(s, inv.now).due)
        when = t(inv.lang, "sub.paused") if due is None else t(inv.lang, "sub.next", when=due)
        items.append(Bullet(text=f"{describe(s)} · {when} · {_status(ledger, s, inv.lang)}"))
        rows.append({**s.as_dict(), "next_due": due})
    return Reply(
        command="subscriptions",
        title=t(inv.lang, "sub.title", n=len(subs)),
        blocks=[BulletList(items=items)],
        data={"subscriptions": rows},
    )


@command(
    "preview",
    params=(_sub_id(),),
    summary="cmd.preview",
    examples=("preview", "preview 3"),
    # a terminal has no channel whose subscription "preview" alone could mean
    cli_summary="cmd.preview_cli",
    cli_examples=("preview 3",),
)
def preview(inv: Invocation, ctx: Context, *, id: int | None) -> Reply:
    """The digest this channel's subscription would get for the week so far, shown to the asker."""
    from storage.subscriptions import SubscriptionStore

    store = SubscriptionStore(ctx.store.db)
    if id is not None:
        sub = store.get(id)
        if sub is None:
            raise UsageError("error.sub_unknown", id=id)
    elif not inv.channel:  # the terminal: no channel to take the subscription from
        raise UsageError("error.sub_id_needed")
    else:
        here = store.all(platform=inv.platform, channel=inv.channel)
        if not here:
            raise UsageError("error.sub_none_here")
        sub = here[0]
    digest = subscription_digest(
        sub, "this-week", platform=inv.platform, now=inv.now, user=inv.user, channel=inv.channel
    )
    from commands import digest as _digest  # noqa: F401  (registers the digest command)

    reply = answer(REGISTRY["digest"], digest, ctx)
    reply.title = t(sub.lang, "sub.preview", id=sub.id) + " · " + reply.title
    reply.command = "preview"
    return reply
