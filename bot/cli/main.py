"""``prdigest``: the terminal front end.

One subcommand per registered chat command is generated from the registry (same parsing, same
Reply), plus the edge-only commands ``demo``, ``import``, ``reclassify``, ``backup``, ``sync`` and
``serve``. Bad input never shows a traceback: one line on stderr and exit code 2; a write the cache
refused (disk full, a lock held past PRDIGEST_LOCK_TIMEOUT) is one line and exit code 1.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import click

from bot.cli.default_cache import DEMO_DB, reading_cache
from bot.cli.program import program
from bot.cli.setup import open_store as _store
from bot.cli.setup import prs
from bot.cli.setup import read_profile as _profile
from bot.cli.setup import read_settings as _settings
from bot.cli.setup import repo_profiles as _profiles
from bot.cli.setup import say as _say
from bot.config.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, UserError, named_setting
from commands.formats import FORMATS
from commands.locale import t

if TYPE_CHECKING:
    from bot.config.settings import Settings
    from classify.rules import Profile
    from commands.model import Reply
    from commands.registry import CommandSpec
    from storage.prs import PRStore

# Everything else is imported where it is used: `prdigest --help` lists the commands from the
# registry's table and the locale alone (no pydantic, no settings, no rule profile, no SQLite),
# and a one-shot read imports only its own command: the start is most of its time.


def _has_token(settings: Settings) -> bool:
    from bot.config.settings import secret

    return bool(secret(settings.github_token))


def _common(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option(
        "--lang",
        type=click.Choice(["en", "zh"]),
        default=None,
        help="Answer language (default PRDIGEST_LANG, else en).",
    )(fn)
    fn = click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="text",
        show_default=True,
        help="Output format.",
    )(fn)
    fn = click.option(
        "--db",
        type=click.Path(path_type=Path),
        default=None,
        help="SQLite cache (default PRDIGEST_DB, else ./prdigest.db).",
    )(fn)
    return fn


def emit(reply: Reply, fmt: str) -> int:
    """Print a reply; returns the exit code (usage → 2 with one line on stderr)."""
    if reply.status == "usage":
        click.echo(f"prdigest: {reply.title}", err=True)
        return EXIT_USAGE
    from commands.render import render

    text = render(reply, fmt)  # type: ignore[arg-type]
    if reply.status == "not_found":
        if fmt == "json":
            click.echo(text, nl=False)
        click.echo(f"prdigest: {reply.title}", err=True)
        return EXIT_FAILED
    click.echo(text, nl=False)
    return 0


def run_command(
    name: str,
    words: tuple[str, ...],
    *,
    db: Path | None,
    lang: str | None,
    options: dict[str, object] | None = None,
    now: datetime | None = None,
) -> Reply:
    from bot.config.runtime import settle_heap
    from commands.invocations import invocation
    from commands.registry import Context, dispatch, load
    from storage.prs import PRStore

    settings = _settings()
    profile = _profile(settings)
    path, note = reading_cache(settings.prdigest_db, db)
    if note is not None and name != "help":
        click.echo(note, err=True)
    if name == "help":  # help reads no cache; the commands' parameters do not need one either
        store = PRStore(_NoCache())  # type: ignore[arg-type]
    else:
        try:
            store = _store(path, settings=settings, profile=profile)
        except UserError as exc:
            raise named_setting(exc, "PRDIGEST_DB" if db is None else None) from None
    inv = invocation(
        name,
        platform="cli",
        defaults=settings.command_defaults(chat=False),
        args=words,
        options=options,
        lang=lang,  # type: ignore[arg-type]  # click's choice: en or zh
        now=now or datetime.now(UTC),
        program=program(),
    )
    ctx = Context(
        store=store, profile=profile, profiles=None if name == "help" else _profiles(settings, store)
    )
    load(name)  # the command's module imported before the heap is settled
    settle_heap(collect=False)
    reply = dispatch(inv, ctx)
    if reply.prose is not None:  # a digest, worded by a language model when one is configured
        reply = _with_prose(reply, settings, store)
    if name != "help":  # a closed period's digest may have stored its storylines (and sentences)
        from storage.storylines import fold_into_file

        fold_into_file(store.db)
    if reply.not_cached is not None and _has_token(settings) and name != "help" and note is None:
        # `pr` of a PR the cache lacks: fetch and store it through a writer's connection
        from bot.ingest.on_demand import answer

        store.db.close()
        store = _store(path, settings=settings, profile=profile)
        ctx = Context(store=store, profile=profile, profiles=_profiles(settings, store))
        reply = answer(inv, ctx, settings)
    return reply


def _with_prose(reply: Reply, settings: Settings, store: PRStore) -> Reply:
    """The digest with verified model-written sentences, when ``PRDIGEST_LLM_URL`` is set
    (``bot.prose``; httpx is imported only then)."""
    from bot.prose.setup import prose_writer

    writer = prose_writer(settings, store.db)
    if writer is None:
        return reply
    from bot.prose.writer import write_blocking

    return write_blocking(reply, writer)


class _NoCache:
    """``help``'s store: it answers from the registry and never reads a cache; a query is a bug."""

    def execute(self, sql: str, parameters: Any = ()) -> Any:
        raise AssertionError(f"help read the cache: {sql}")

    def close(self) -> None:
        return


def command_help(spec: CommandSpec) -> str:
    """``prdigest COMMAND --help``, generated from the command's declared parameters."""
    from commands.params import listed

    summary = t("en", spec.summary_for("cli"))
    lines = [summary, "", f"Usage: {program()} {spec.usage}"]
    positional = [p for p in listed(spec.params, "cli") if p.positional]
    if positional:
        lines += ["", "\b", "Arguments:"]
        for p in positional:
            text = t("en", p.help)
            if p.choices:
                text += f" ({t('en', 'help.choices', choices=', '.join(p.choices))})"
            lines.append(f"  {p.usage().strip('[]'):<12} {text}")
    if examples := spec.examples_for("cli"):
        lines += ["", "\b", "Examples:", *(f"  {program()} {e}" for e in examples)]
    return "\n".join(lines)


_NUMBER = re.compile(r"^-\d[\d.,]*$")


def _make_command(spec: CommandSpec) -> click.Command:
    """One CLI subcommand from a registered command: its words, its declared options, --post, --chart."""
    from commands.params import for_surface, listed

    options = [p for p in for_surface(spec.params, "cli") if p.option or p.named]
    metavar = " ".join(p.usage() for p in listed(spec.params, "cli") if p.positional)

    @click.pass_context
    def cmd(
        click_ctx: click.Context,
        /,
        words: tuple[str, ...],
        db: Path | None,
        fmt: str,
        lang: str | None,
        **named: Any,
    ) -> None:
        for word in words:
            if word.startswith("-") and not _NUMBER.match(word):
                raise click.NoSuchOption(word, ctx=click_ctx)
        if spec.name == "help" and not _registry_explains(words):
            click_ctx.exit(terminal_help(click_ctx, words, fmt, lang))
        post = named.pop("post", None)
        chart: Path | None = named.pop("chart", None)
        if post:
            from bot.chat.post import parse_target

            parse_target(post)  # a bad target is one line before any work is done
        if chart is not None:
            check_chart_path(chart)
        given = {k: v for k, v in named.items() if v is not None}
        reply = run_command(spec.name, words, db=db, lang=lang, options=given)
        if chart is not None and reply.ok:
            write_chart(reply, chart)
        if post and reply.ok:
            click_ctx.exit(post_to(reply, post))
        click_ctx.exit(emit(reply, fmt))

    fn: Callable[..., Any] = click.argument("words", nargs=-1, metavar=metavar)(cmd)
    for p in options:
        flag = "--" + p.name.replace("_", "-")
        fn = click.option(flag, p.name, default=None, metavar=p.metavar, help=t("en", p.help) + ".")(fn)
    if spec.postable:
        fn = click.option(
            "--post",
            default=None,
            metavar="PLATFORM:CHANNEL",
            help="Post the answer to a chat channel instead of printing it: slack:CHANNEL_ID or "
            "discord:CHANNEL_ID (lead message + thread).",
        )(fn)
    if spec.charted:
        fn = click.option(
            "--chart",
            default=None,
            metavar="FILE.png",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Also draw the chart (PRs per module against the average, risk counts) as a PNG.",
        )(fn)
    fn = _common(fn)
    summary = t("en", spec.summary_for("cli"))
    # "-5" is a word (a PR number, a page) the command refuses in its own words, not an unknown
    # option: unknown options reach the words in order, and only those that are no number fail
    settings = {"ignore_unknown_options": True}
    return click.command(spec.name, help=command_help(spec), short_help=summary, context_settings=settings)(
        fn
    )


def _registry_explains(words: tuple[str, ...]) -> bool:
    """Whether ``prdigest help WORDS`` is the registry's own help: one of its terminal commands
    (which it explains in the asker's language, as text, Markdown or JSON, and which rejects any
    extra word itself)."""
    return bool(words) and words[0].lower().removeprefix("/") in CLI_COMMANDS


def terminal_help(click_ctx: click.Context, words: tuple[str, ...], fmt: str, lang: str | None) -> int:
    """``prdigest help``: every command a terminal has, the registry's and the edge's alike
    (sync, demo, subscribe …), as a terminal types them; ``prdigest help subscribe`` is the
    terminal's ``subscribe --help`` (a TARGET and options), not chat's ``/subscribe at=…``."""
    from commands.model import Bullet, BulletList, Paragraph, Reply
    from commands.registry import load

    root = click_ctx.find_root()
    group = root.command
    assert isinstance(group, LazyGroup)
    names = group.list_commands(root)
    language = lang or _settings().prdigest_lang
    if words:
        name = words[0].lower().removeprefix("/")
        if name not in names:
            known = ", ".join(names)
            message = t(language, "error.unknown_command", word=repr(words[0][:40]), known=known)
            raise UserError(t(language, "usage.line", message=message, usage="prdigest help [COMMAND]"))
        if len(words) > 1:
            raise UserError(
                f"give one COMMAND, not {words[1][:40]!r} as well — usage: prdigest help [COMMAND]"
            )
        command = group.get_command(root, name)
        assert command is not None
        text = command.get_help(click.Context(command, info_name=name, parent=root))
        if fmt == "json":
            import json

            click.echo(json.dumps({"command": name, "help": text}, ensure_ascii=False, indent=2))
        else:
            click.echo(text)
        return 0
    rows: list[dict[str, str | None]] = []
    for name in names:
        spec = load(name) if name in CLI_COMMANDS else None
        summary = t(language, spec.summary_for("cli")) if spec else group.summary(root, name)
        rows.append({"name": name, "usage": spec.usage if spec else None, "summary": summary})
    items = [Bullet(text=f"{program()} {r['usage'] or r['name']} — {r['summary']}") for r in rows]
    reply = Reply(
        command="help",
        title=t(language, "help.title"),
        blocks=[BulletList(items=items), Paragraph(text=t(language, "help.more", lead=f"{program()} "))],
        data={"commands": rows},
    )
    reply.lang = language
    return emit(reply, fmt)


def check_chart_path(path: Path) -> None:
    """A chart that could not be written is one line before any work is done."""
    if not path.parent.is_dir():
        raise UserError(f"cannot write the chart to {path}: no directory {path.parent}")
    if path.suffix.lower() != ".png":
        raise UserError(f"the chart is a PNG: give a file name ending in .png, not {path.name}")


def write_chart(reply: Reply, path: Path) -> None:
    """``--chart FILE.png``: draw the reply's numbers (matplotlib is imported only now)."""
    from bot.delivery.chart import write_png

    try:
        write_png(reply.data, reply.lang, path)
    except OSError as exc:
        raise UserError(
            f"cannot write the chart to {path}: {exc.strerror or exc}", exit_code=EXIT_FAILED
        ) from exc


def post_to(reply: Reply, target: str) -> int:
    """``--post PLATFORM:CHANNEL``: deliver the reply through the platform's Poster."""
    from bot.chat.platforms import post_from_cli

    result = post_from_cli(reply, target, _settings())
    where = f"{result.platform}:{result.channel}"
    n = len(result.replies)
    line = f"posted to {where}: lead message {result.lead} with {n} thread {'reply' if n == 1 else 'replies'}"
    click.echo(line + (f" ({result.permalink})" if result.permalink else ""))
    return 0


# The registry's commands a terminal has (chat-only ones, /subscribe …, have terminal counterparts
# of their own); each is built from its registration when invoked (tests check this list).
CLI_COMMANDS = ("digest", "help", "pr", "risks", "search", "preview")
# Their summaries' locale keys where a terminal's differs from chat's (`prdigest --help` lists them
# without importing the commands; a test checks these against the registrations' ``cli_summary``).
CLI_SUMMARIES = {"preview": "cmd.preview_cli"}


def _sync_command() -> click.Command:
    from bot.cli.sync import sync

    return sync


def _profile_commands() -> click.Command:
    from bot.cli.profile import profile_group

    return profile_group


def _serve_command() -> click.Command:
    from bot.host.serve import serve

    return serve


def _discord_commands() -> click.Command:
    from bot.cli.discord import discord_group

    return discord_group


def _subscription_command(name: str) -> click.Command:
    from bot.cli import subscriptions

    command = getattr(subscriptions, name)
    assert isinstance(command, click.Command)
    return command


class LazyGroup(click.Group):
    """Edge commands whose adapters pull in heavy SDKs (slack_bolt, aiohttp, httpx) are imported
    only when invoked, so `prdigest digest` starts in a fraction of a second."""

    lazy: ClassVar[dict[str, tuple[Callable[[], click.Command], str]]] = {
        "profile": (lambda: _profile_commands(), "Learn a rule profile from a repository's cached history."),
        "sync": (
            lambda: _sync_command(),
            "Fetch merged PRs from GitHub or a local clone, classify and cache them.",
        ),
        "serve": (
            lambda: _serve_command(),
            "Run the configured chat front ends (Slack, Discord), scheduled digests and /healthz.",
        ),
        "discord": (lambda: _discord_commands(), "Discord set-up: sync the slash commands, the invite URL."),
        "deliver": (
            lambda: _subscription_command("deliver"),
            "Run every due scheduled digest once and exit (cron, timers).",
        ),
        "subscribe": (
            lambda: _subscription_command("subscribe"),
            "Subscribe PLATFORM:CHANNEL to the scheduled digest.",
        ),
        "subscriptions": (
            lambda: _subscription_command("subscriptions"),
            "List subscriptions, next due times, last deliveries.",
        ),
        "subscription": (
            lambda: _subscription_command("subscription"),
            "Show, pause, resume or change one subscription.",
        ),
        "unsubscribe": (lambda: _subscription_command("unsubscribe"), "Remove a subscription."),
        "deliveries": (
            lambda: _subscription_command("deliveries"),
            "The delivery ledger; --retry a failed or unknown one.",
        ),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy, *CLI_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in CLI_COMMANDS and cmd_name not in self.commands:
            from commands.registry import load

            spec = load(cmd_name)  # only the command asked for is imported (and built)
            assert spec is not None and spec.cli
            self.add_command(_make_command(spec))
        if cmd_name in self.lazy:
            return self.lazy[cmd_name][0]()
        return super().get_command(ctx, cmd_name)

    def summary(self, ctx: click.Context, name: str) -> str:
        """A command's one-line summary, without importing its module."""
        if name in self.lazy:
            return self.lazy[name][1]
        if name in CLI_COMMANDS:  # the registry's summary key, without importing the command
            return t("en", CLI_SUMMARIES.get(name, f"cmd.{name}"))
        command = self.commands[name]
        return command.short_help or command.get_short_help_str(200)  # whole: write_dl wraps it

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, self.summary(ctx, name)) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="prdigest")
def cli() -> None:
    """Weekly digests, risk flags and slash commands for the merged PRs of a GitHub repository."""


@cli.command()
@click.option(
    "--db",
    type=click.Path(path_type=Path),
    default=DEMO_DB,
    show_default=True,
    help="Where to put the demo cache (kept apart from your real cache).",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--lang", type=click.Choice(["en", "zh"]), default=None)
def demo(db: Path, fmt: str, lang: str | None) -> None:
    """Load the bundled vLLM-like demo history and print the digest of its latest full week."""
    from bot.ingest.demo import demo_data_path, leftovers
    from bot.ingest.load import RecordError, import_file
    from classify.periods import week_of
    from storage.db import close

    settings = _settings()
    profile = _profile(settings)
    found = leftovers(db) if db.exists() else None
    if found is not None and not found.demo_only:
        raise UserError(
            f"{db} holds {prs(found.prs)} that no demo load put there (a real cache, or an older prdigest's "
            "demo); the demo neither replaces it nor mixes its fictional PRs into it: pass --db with a new file"
        )
    if found is not None:  # an older prdigest's demo: its PRs were renumbered since
        aside = _move_aside(db)
        click.echo(
            f"demo: {db} held {prs(found.prs)} the bundled demo no longer has (an older demo); moved it to {aside}",
            err=True,
        )
    store = _store(db, create=True, settings=settings, profile=profile)
    try:
        result = import_file(store, profile, demo_data_path(), source="demo")
    except RecordError as exc:
        raise UserError(str(exc)) from None
    repo = store.repos()[0] if len(store.repos()) == 1 else "vllm-project/vllm"
    span = store.merged_range(repo)
    assert span is not None
    close(store.db)  # the .db file alone now holds everything (nothing left in -wal)
    total, counts = result.total, result.counts
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(settings.prdigest_timezone)
    last = week_of(span[1], zone)
    week = (
        last
        if span[1].astimezone(zone).isoweekday() == 7
        else week_of(last.start - (last.end - last.start), zone)
    )
    click.echo(
        f"demo: {prs(total)} in {db} ({counts.new} new, {counts.updated} updated, {counts.unchanged} unchanged)",
        err=True,
    )
    reply = run_command("digest", (week.label,), db=db, lang=lang, options={"repo": repo})
    code = emit(reply, fmt)
    run = program()
    click.echo(f"next: {run} risks core-path {week.label} --db {db}   ·   {run} help", err=True)
    sys.exit(code)


def _move_aside(db: Path) -> Path:
    """Rename a cache and its WAL files to ``NAME.YYYYmmdd-HHMMSS.bak`` beside it: kept, not deleted."""
    from datetime import datetime

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    aside = db.with_name(f"{db.name}.{stamp}.bak")
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{db}{suffix}")
        if src.exists():
            src.rename(Path(f"{aside}{suffix}"))
    return aside


@cli.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--db", type=click.Path(path_type=Path), default=None, help="SQLite cache (default PRDIGEST_DB)."
)
def import_(file: Path, db: Path | None) -> None:
    """Import PR records from a JSON Lines file (.jsonl or .jsonl.gz), one PR per line."""
    from bot.ingest.github import web_base
    from bot.ingest.learn import after_write
    from bot.ingest.load import RecordError, import_file
    from storage.db import close

    settings = _settings()
    store = _store(db or settings.prdigest_db, create=True, settings=settings)
    try:  # each repository classified with its own profile, then learned where due
        result = import_file(
            store, _profiles(settings, store), file, web=web_base(settings.prdigest_github_api_url)
        )
    except RecordError as exc:
        raise UserError(str(exc)) from None
    notes = after_write(store, settings, sorted(result.repos))
    close(store.db)
    counts = result.counts
    if result.urls_rebuilt:
        _say(
            f"{result.urls_rebuilt} url(s) did not point at their own PR and were rebuilt from repo and "
            f"number (the first at line {result.first_rebuilt_line})"
        )
    click.echo(
        f"imported {prs(result.total)}: {counts.new} new, {counts.updated} updated, {counts.unchanged} unchanged"
        + (f", {counts.kept_richer} kept (richer data already cached)" if counts.kept_richer else "")
    )
    for note in notes:
        _say(note)


@cli.command("reclassify")
@click.option(
    "--db", type=click.Path(path_type=Path), default=None, help="SQLite cache (default PRDIGEST_DB)."
)
@click.option("--repo", default=None, metavar="OWNER/NAME", help="Only this repository.")
@click.option(
    "--workers", type=click.IntRange(1, 64), default=None, help="Classifier processes (default: CPUs, ≤ 4)."
)
def reclassify_(db: Path | None, repo: str | None, workers: int | None) -> None:
    """Re-run classification with the current profile (no network): only PRs it has not yet classified as it is now."""
    from bot.ingest.load import reclassify
    from classify.title_keys import ProfileTitleKeys
    from storage.db import close

    settings = _settings()
    store = _store(db or settings.prdigest_db, settings=settings)
    profiles = _profiles(settings, store)
    repos = [repo] if repo else store.repos()
    lines = []
    for name in repos or [None]:  # each repository with its own profile
        profile = profiles(name)
        store.title_keys = ProfileTitleKeys(profile)
        result = reclassify(store, profile, name, workers=workers)
        lines.append(_reclassified(result, profile, f"{name}: " if len(repos) > 1 else ""))
    close(store.db)
    for line in lines:
        click.echo(line)


def _reclassified(result: Any, profile: Profile, lead: str) -> str:
    if result.up_to_date:
        return (
            f"{lead}unchanged: all {prs(result.total)} are already classified with profile {profile.name} "
            f"{profile.version} as it is now; nothing to do"
        )
    return (
        f"{lead}reclassified {result.classified} of {prs(result.total)} with profile {profile.name} {profile.version}: "
        f"{result.changed} changed in {result.seconds:.1f}s ({result.workers} worker{'s' if result.workers > 1 else ''})"
    )


@cli.command("backup")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--db", type=click.Path(path_type=Path), default=None, help="SQLite cache (default PRDIGEST_DB)."
)
def backup_(file: Path, db: Path | None) -> None:
    """Write a consistent copy of the cache to FILE (a new file; safe while other commands write)."""
    from storage.backup import backup

    store = _store(db or _settings().prdigest_db)
    result = backup(store.db, file)
    store.db.close()
    click.echo(f"backed up {prs(result.prs)} to {result.path} ({result.size / 1_000_000:.1f} MB)")


def _exit_on_config_error(exc: Exception) -> None:
    """One line and exit 2 for a setting or rule profile the user must fix. Their classes live in
    modules a run that never read settings did not import, so they are looked up then."""
    config, rules = sys.modules.get("bot.config.settings"), sys.modules.get("classify.rules")
    kinds = tuple(
        k
        for k in (getattr(config, "ConfigError", None), getattr(rules, "ProfileError", None))
        if k is not None
    )
    if kinds and isinstance(exc, kinds):
        click.echo(f"prdigest: {exc}", err=True)
        sys.exit(EXIT_USAGE)


def _exit_on_storage_failure(exc: Exception) -> None:
    """Exit with one line for a failure of the cache; return for anything else (a bug: traceback).

    Storage errors can only come from a run that imported storage.db, so the classes are looked up
    then: a run that never opened the cache did not import SQLite for its error handling.
    """
    if "storage.faults" not in sys.modules:
        return
    import sqlite3

    from storage.faults import StoreError, StoreUnavailable

    if isinstance(exc, StoreUnavailable):  # disk full, I/O error, a lock held too long: the cache is intact
        click.echo(f"prdigest: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    if isinstance(exc, sqlite3.Error):  # a failure no storage function translated (e.g. a read error)
        click.echo(f"prdigest: the cache could not be used (SQLite: {exc})", err=True)
        sys.exit(EXIT_FAILED)
    if isinstance(exc, StoreError):
        click.echo(f"prdigest: {exc}", err=True)
        sys.exit(EXIT_USAGE)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one line and exit 2 for any anticipated problem, never a traceback."""
    # One-shot commands answer on stdout/stderr themselves; library warnings would only repeat
    # them. `prdigest serve` reconfigures logging for a long-running process.
    logging.basicConfig(level=logging.ERROR, format="prdigest: %(name)s: %(message)s")
    try:
        code = cli.main(args=argv, prog_name="prdigest", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:  # `prdigest`, `prdigest discord`: their help
        click.echo(exc.format_message())
        sys.exit(0)
    except click.UsageError as exc:
        # the command as typed (`prdigest discord sync-commands`), not just its last word
        path = exc.ctx.command_path if exc.ctx else "prdigest"
        click.echo(f"prdigest: {exc.format_message()} (see {path} --help)", err=True)
        sys.exit(EXIT_USAGE)
    except click.ClickException as exc:  # UserError among them
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort:
        click.echo("prdigest: aborted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:
        _exit_on_config_error(exc)
        _exit_on_storage_failure(exc)
        raise
    except KeyboardInterrupt:
        click.echo("prdigest: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(code if isinstance(code, int) else 0)
