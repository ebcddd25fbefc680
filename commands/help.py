"""``help [COMMAND]``: the registry describes itself, so help can never drift from the commands.

Everything shown comes from the declarations: the usage line and one line per parameter (its
help text, its choices, and what only the active profile knows, such as the module names). No
command is special-cased here.
"""

from __future__ import annotations

from commands import params as P
from commands.context import Context
from commands.locale import t
from commands.model import Block, Bullet, BulletList, Heading, Invocation, Paragraph, Reply
from commands.spec import (
    REGISTRY,
    CommandSpec,
    command,
    how_to_type,
    scope,
    specs,
    surface,
    typed,
)


def describe(param: P.Param, spec_scope: P.Scope, lang: str, where: P.Surface = "cli") -> str:
    """``PERIOD — week (the last 7 days, default), …``: one parameter as help shows it where it
    is typed (Discord names every option: ``period:PERIOD``)."""
    notes = [t(lang, "help.choices", choices=", ".join(param.choices))] if param.choices else []
    if param.extra is not None:
        notes.append(param.extra(spec_scope, lang))
    shown = P.typed_usage(param) if where == "discord" else param.usage()
    text = f"{shown.strip('[]')} — {t(lang, param.help)}"
    if not notes:
        return text
    return text + (f"（{'；'.join(notes)}）" if lang == "zh" else f" ({'; '.join(notes)})")


def explain(spec: CommandSpec, inv: Invocation, ctx: Context) -> Reply:
    lang = inv.lang
    lead = how_to_type(inv)
    shown = P.listed(spec.params, surface(inv))
    spec_scope = scope(inv, ctx)
    examples = spec.examples_for(surface(inv))
    blocks: list[Block] = [
        Paragraph(text=t(lang, spec.summary_for(surface(inv)))),
        Heading(text=t(lang, "help.usage"), level=3),
        Paragraph(text=lead + spec.usage_for(surface(inv))),
    ]
    if shown:
        blocks += [
            Heading(text=t(lang, "help.parameters"), level=3),
            BulletList(items=[Bullet(text=describe(p, spec_scope, lang, surface(inv))) for p in shown]),
        ]
    if examples:
        blocks += [
            Heading(text=t(lang, "help.examples"), level=3),
            BulletList(items=[Bullet(text=typed(inv, *P.split_words(e))) for e in examples]),
        ]
    data = {
        "command": spec.name,
        "usage": spec.usage,
        "params": [p.name for p in spec.params if p.listed],
        "examples": list(examples),
    }
    return Reply(command="help", title=f"help {spec.name}", blocks=blocks, data=data)


@command(
    "help", params=(P.command_name(),), summary="cmd.help", examples=("help", "help digest"), postable=False
)
def run(inv: Invocation, ctx: Context, *, command: str | None) -> Reply:
    every = specs()  # help describes every command (commands.registry loads them all for it)
    if command is not None:
        return explain(REGISTRY[command], inv, ctx)
    lang = inv.lang
    lead = how_to_type(inv)
    where = surface(inv)
    shown = [s for s in every if where != "cli" or s.cli]  # a terminal lists its own
    items = [Bullet(text=f"{lead}{s.usage_for(where)} — {t(lang, s.summary_for(where))}") for s in shown]
    blocks: list[Block] = [BulletList(items=items), Paragraph(text=t(lang, "help.more", lead=lead))]
    data = {"commands": [{"name": s.name, "usage": s.usage} for s in every]}
    return Reply(command="help", title=t(lang, "help.title"), blocks=blocks, data=data)
