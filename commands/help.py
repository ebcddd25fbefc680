"""``help [COMMAND]``: the registry describes itself, so help can never drift from the commands."""

from __future__ import annotations

from commands.locale import t
from commands.model import Block, Bullet, BulletList, Heading, Invocation, Paragraph, Reply, UsageError
from commands.registry import REGISTRY, Context, command

CHAT_PLATFORMS = ("slack", "discord")


def how_to_type(inv: Invocation) -> str:
    """What goes before a command where it was asked: ``/digest`` in chat, ``prdigest digest`` in a terminal."""
    return "/" if inv.platform in CHAT_PLATFORMS else "prdigest "


@command(
    "help",
    usage="help [COMMAND]",
    summary={"en": "cmd.help", "zh": "cmd.help"},
    examples=("help", "help digest"),
)
def run(inv: Invocation, ctx: Context) -> Reply:
    lang = inv.lang
    lead = how_to_type(inv)
    if len(inv.args) > 1:
        raise UsageError("help takes at most one command name")
    if inv.args:
        name = inv.args[0].lower().lstrip("/")
        spec = REGISTRY.get(name)
        if spec is None:
            raise UsageError(
                f"unknown command {inv.args[0][:40]!r}; commands are: {', '.join(sorted(REGISTRY))}"
            )
        blocks: list[Block] = [
            Paragraph(text=t(lang, spec.summary.get(lang, spec.summary["en"]))),
            Heading(text=t(lang, "help.usage"), level=3),
            Paragraph(text=lead + spec.usage),
        ]
        if spec.examples:
            blocks += [
                Heading(text=t(lang, "help.examples"), level=3),
                BulletList(items=[Bullet(text=lead + e) for e in spec.examples]),
            ]
        if name in ("digest", "risks", "search"):
            blocks.append(Paragraph(text=t(lang, "help.periods")))
        if name == "digest":
            sep = "、" if lang == "zh" else ", "
            blocks.append(
                Paragraph(
                    text=t(lang, "help.modules", profile=ctx.profile.name) + sep.join(ctx.profile.modules)
                )
            )
        if name == "risks":
            blocks.append(Paragraph(text=t(lang, "help.flags")))
        details = {"command": name, "usage": spec.usage, "examples": list(spec.examples)}
        return Reply(command="help", title=f"help {name}", blocks=blocks, data=details)
    items = [
        Bullet(text=f"{lead}{s.usage} — {t(lang, s.summary.get(lang, s.summary['en']))}")
        for s in REGISTRY.values()
    ]
    blocks = [BulletList(items=items), Paragraph(text=t(lang, "help.periods"))]
    data = {"commands": [{"name": s.name, "usage": s.usage} for s in REGISTRY.values()]}
    return Reply(command="help", title=t(lang, "help.title"), blocks=blocks, data=data)
