"""Commands as the front ends see them: each one's declared parameters, summary and handler.

Each command is a function ``(Invocation, Context, **values) -> Reply`` registered with ``@command``
together with its typed parameters (``commands.params``) in ``REGISTRY``. The command modules
import this module (never ``commands.registry``, which imports them), so every command can be
looked up and loaded on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from commands.context import CHAT_PLATFORMS, Context
from commands.locale import t
from commands.model import Invocation, Reply, UsageError
from commands.params import Param, Parsed, Scope, Surface, parse, public, typed_words, usage_line

Handler = Callable[..., Reply]

# Every command's name, in the order help and the terminal list them.
COMMAND_NAMES = (
    "digest",
    "help",
    "pr",
    "risks",
    "search",
    "subscribe",
    "unsubscribe",
    "subscriptions",
    "preview",
)


@dataclass(frozen=True)
class CommandSpec:
    """A registered command: its parameters, its one-line summary (a locale key), examples.

    ``admin_only`` commands (the subscription commands to come) are refused unless the front end
    marked the invocation ``is_admin``. ``postable`` commands produce a Reply worth posting to a
    channel (``--post``). ``charted`` commands carry the numbers a chart is drawn from
    (``data["modules"]`` and ``data["counts"]``; the CLI offers ``--chart FILE.png``).
    """

    name: str
    params: tuple[Param, ...]
    summary: str
    handler: Handler
    examples: tuple[str, ...] = ()
    admin_only: bool = False
    postable: bool = True
    cli: bool = True  # False: chat only (the terminal has its own command of that name, or none)
    charted: bool = False
    cli_summary: str | None = None  # the terminal's summary key, where chat's says something a terminal lacks
    cli_examples: tuple[str, ...] | None = None  # the terminal's examples, where chat's do not work there

    def summary_for(self, surface: Surface) -> str:
        """The summary's locale key where the command is typed."""
        return self.cli_summary if surface == "cli" and self.cli_summary else self.summary

    def examples_for(self, surface: Surface) -> tuple[str, ...]:
        return self.cli_examples if surface == "cli" and self.cli_examples is not None else self.examples

    @property
    def usage(self) -> str:
        """The usage line as a terminal shows it (without the ``prdigest`` in front)."""
        return usage_line(self.name, self.params, "cli")

    def usage_for(self, surface: Surface) -> str:
        return usage_line(self.name, self.params, surface)


REGISTRY: dict[str, CommandSpec] = {}


def command(
    name: str,
    *,
    params: Sequence[Param] = (),
    summary: str,
    examples: tuple[str, ...] = (),
    admin_only: bool = False,
    postable: bool = True,
    cli: bool = True,
    charted: bool = False,
    cli_summary: str | None = None,
    cli_examples: tuple[str, ...] | None = None,
) -> Callable[[Handler], Handler]:
    """Register a command. Every command also takes the chat flag ``public``."""

    def register(fn: Handler) -> Handler:
        if name in REGISTRY:
            raise ValueError(f"command {name!r} registered twice")
        declared = (*params, public())
        REGISTRY[name] = CommandSpec(
            name,
            declared,
            summary,
            fn,
            examples,
            admin_only,
            postable,
            cli,
            charted,
            cli_summary=cli_summary,
            cli_examples=cli_examples,
        )
        return fn

    return register


def specs() -> list[CommandSpec]:
    """The registered commands, in ``COMMAND_NAMES`` order (``commands.registry.specs`` loads all first)."""
    rank = {name: i for i, name in enumerate(COMMAND_NAMES)}
    return sorted(REGISTRY.values(), key=lambda s: rank.get(s.name, len(rank)))


def surface(inv: Invocation) -> Surface:
    return "slack" if inv.platform == "slack" else "discord" if inv.platform == "discord" else "cli"


def how_to_type(inv: Invocation) -> str:
    """What goes before a command where it was asked: ``/digest`` in chat, ``prdigest digest`` in
    a terminal (the program as the user invoked it)."""
    return "/" if inv.platform in CHAT_PLATFORMS else f"{inv.program} "


def typed(inv: Invocation, command: str, *words: str) -> str:
    """A command as the asker types it where they asked: ``prdigest digest 2026-W19`` in a
    terminal, ``/digest 2026-W19`` in Slack, ``/digest period:2026-W19`` in Discord (whose
    commands take named options) — so a hint works when copied. The command's parameters are
    read from ``REGISTRY`` where they change the words: Discord registers every command when it
    starts (its application commands), a terminal names its own command's options."""
    where = surface(inv)
    spec = (
        REGISTRY.get(command)
        if where == "discord" or (where == "cli" and any("=" in w for w in words))
        else None
    )
    if where == "discord" and spec is not None:
        shown = typed_words(spec.params, words)
    else:
        shown = [_quoted_word(w) for w in words]
        if spec is not None:  # a terminal names them as options: --page 2
            shown = [_as_option(spec, w) for w in shown]
    return " ".join([how_to_type(inv) + command, *shown]).rstrip()


def _as_option(spec: CommandSpec, word: str) -> str:
    """``page=2`` as a terminal takes it, ``--page 2``, for a parameter named in chat by ``name=``."""
    name, eq, value = word.partition("=")
    if eq and any(p.named and p.name == name for p in spec.params):
        return f"--{name} {value}"
    return word


def _quoted_word(word: str) -> str:
    """A word with a space, quoted as a shell and the chat parser read it: ``at="mon 09:00"``."""
    if " " not in word:
        return word
    key, eq, value = word.partition("=")
    return f'{key}="{value}"' if eq and " " not in key else f'"{word}"'


def program(inv: Invocation) -> str:
    """The terminal command for what only a terminal does (``sync``, ``reclassify``): as the user
    invoked it in a terminal; in chat the operator's ``prdigest``."""
    return inv.program if surface(inv) == "cli" else "prdigest"


def scope(inv: Invocation, ctx: Context, *, repos: bool = False) -> Scope:
    """What the parameter parsers may consult for ``inv`` (``repos`` costs a query)."""
    return Scope(
        now=inv.now,
        timezone=inv.timezone,
        profile=ctx.profile,
        commands=COMMAND_NAMES,
        repos=tuple(ctx.store.repos()) if repos else (),
    )


def error_text(inv: Invocation, exc: UsageError) -> str:
    """A UsageError in the caller's language; the commands it names as typed where it was asked."""
    template = t("en", exc.key)  # the placeholders are the same in every language
    writers: dict[str, Callable[[], str]] = {
        "prog": lambda: program(inv),
        "help": lambda: typed(inv, "help", inv.command if inv.command in COMMAND_NAMES else ""),
        "subscribe": lambda: typed(inv, "subscribe"),
    }
    hints = {name: write() for name, write in writers.items() if "{" + name + "}" in template}
    return t(inv.lang, exc.key, **hints, **exc.values)


def usage_reply(inv: Invocation, exc: UsageError) -> Reply:
    """``<what was wrong> — usage: /digest [PERIOD] [MODULE…] [public]``, in the caller's language."""
    message = error_text(inv, exc)
    spec = REGISTRY.get(inv.command)
    if spec is None:
        return Reply.usage(inv.command or "?", message)
    line = how_to_type(inv) + spec.usage_for(surface(inv))
    return Reply.usage(spec.name, t(inv.lang, "usage.line", message=message, usage=line))


def _parsed(spec: CommandSpec, inv: Invocation, ctx: Context) -> tuple[Invocation, Parsed]:
    parsed = parse(spec.params, inv, scope(inv, ctx))
    return (replace(inv, **parsed.invocation) if parsed.invocation else inv), parsed


def _parsed_for_repo(spec: CommandSpec, inv: Invocation, ctx: Context) -> tuple[Invocation, Parsed, Context]:
    """Parse with the profile of the repository the invocation is about (a module word means
    what that repository's profile says); parsed again if the words named another repository."""
    if ctx.profiles is None or inv.command == "help":
        return (*_parsed(spec, inv, ctx), ctx)
    ctx = ctx.for_repo(ctx.guess_repo(inv))
    parsed_inv, parsed = _parsed(spec, inv, ctx)
    if parsed_inv.repo and parsed_inv.repo != inv.repo:
        other = ctx.for_repo(parsed_inv.repo)
        if other.profile is not ctx.profile:
            ctx = other
            parsed_inv, parsed = _parsed(spec, inv, ctx)
    return parsed_inv, parsed, ctx


def answer(spec: CommandSpec, inv: Invocation, ctx: Context) -> Reply:
    """Parse ``inv`` against ``spec`` (with its repository's profile) and run it; bad input
    becomes a one-line usage answer."""
    try:
        inv, parsed, ctx = _parsed_for_repo(spec, inv, ctx)
        reply = spec.handler(inv, ctx, **parsed.values)
        reply.flags = parsed.flags
    except UsageError as exc:
        reply = usage_reply(inv, exc)
    reply.lang = inv.lang
    return reply
