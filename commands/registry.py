"""One registry of commands shared by every front end.

The CLI generates its subcommands from it, the chat adapters dispatch to it and Discord builds its
application commands from it, so parsing, usage lines, help and the messages for bad input exist
once, in both languages. Each command lives in a module of its own (``commands.spec`` says how one
is declared); this module loads them — only the one asked for, so a one-shot ``prdigest pr N``
does not import the digest's composition (~30 ms of its start) — and dispatches to them.
"""

from __future__ import annotations

from collections.abc import Callable

from commands.context import CHAT_PLATFORMS, Context, Profiles
from commands.locale import t
from commands.model import Invocation, Reply, UsageError
from commands.spec import (
    COMMAND_NAMES,
    REGISTRY,
    CommandSpec,
    answer,
    command,
    error_text,
    how_to_type,
    program,
    scope,
    surface,
    typed,
    usage_reply,
)
from commands.spec import specs as registered

__all__ = [
    "CHAT_PLATFORMS",
    "COMMAND_NAMES",
    "REGISTRY",
    "CommandSpec",
    "Context",
    "Profiles",
    "command",
    "dispatch",
    "error_text",
    "how_to_type",
    "load",
    "load_all",
    "program",
    "scope",
    "specs",
    "surface",
    "typed",
    "usage_reply",
]


def _digest() -> None:
    from commands import digest  # noqa: F401


def _help() -> None:
    load_all()  # help describes every command


def _pr() -> None:
    from commands import pr  # noqa: F401


def _risks() -> None:
    from commands import risks  # noqa: F401


def _search() -> None:
    from commands import search  # noqa: F401


def _subscriptions() -> None:
    from commands import subscriptions  # noqa: F401


# What loads each command (registering it): a front end imports only the command it runs.
# tests/commands/test_registry_modules.py checks this against what the modules register.
LOADERS: dict[str, Callable[[], None]] = {
    "digest": _digest,
    "help": _help,
    "pr": _pr,
    "risks": _risks,
    "search": _search,
    "subscribe": _subscriptions,
    "unsubscribe": _subscriptions,
    "subscriptions": _subscriptions,
    "preview": _subscriptions,
}


def load_all() -> None:
    """Import every command module so that its ``@command`` runs (idempotent)."""
    from commands import digest, help, pr, risks, search, subscriptions  # noqa: F401


def specs() -> list[CommandSpec]:
    """Every command, in the registry's own order."""
    load_all()
    return registered()


def load(name: str) -> CommandSpec | None:
    """The command ``name``, importing only its own module; None for an unknown name."""
    if name not in REGISTRY and name in LOADERS:
        LOADERS[name]()
    return REGISTRY.get(name)


def dispatch(inv: Invocation, ctx: Context) -> Reply:
    """Run ``inv`` and always return a Reply: bad input becomes a one-line usage answer."""
    if inv.platform == "discord":
        load_all()  # its hints name other commands' options, as its application commands take them
    spec = load(inv.command)
    if spec is None:
        load_all()
        exc = UsageError(
            "error.unknown_command", word=repr(inv.command[:40]), known=", ".join(sorted(REGISTRY))
        )
        reply = usage_reply(inv, exc)
    elif spec.admin_only and not inv.is_admin:
        key = "error.admin_only_discord" if inv.platform == "discord" else "error.admin_only"
        reply = Reply.usage(spec.name, t(inv.lang, key, name=spec.name))
    else:
        return answer(spec, inv, ctx)
    reply.lang = inv.lang
    return reply
