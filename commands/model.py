"""Invocation in, Reply out: the one document every front end speaks.

A chat message, a CLI call and the Monday job all become an ``Invocation``; every command
answers with a ``Reply`` made of neutral blocks (headings, paragraphs, PR items, facts,
tables). Renderers (text, Markdown, JSON, Block Kit, Discord embeds) turn the same Reply into
platform output, so no command ever writes platform markup and every PR title stays data that
each renderer escapes for its own medium.

The Reply and its blocks are plain dataclasses, not pydantic models: every command imports them,
and pydantic's import chain was most of a one-shot command's start-up (see ``classify.models``).
Nothing outside the program builds them, so there is nothing to validate; ``dataclasses.replace``
copies one with changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from classify.errors import UsageError
from commands.locale import t

__all__ = ["UsageError"]

Lang = Literal["en", "zh"]
Status = Literal["ok", "usage", "not_found", "error"]


@dataclass(frozen=True)
class Invocation:
    """A request to run one command, independent of where it came from.

    Made by ``commands.invocations`` only. A front end fills in one of ``args`` (the words of a
    terminal's command line), ``text`` (a chat message's text after the command, as typed) or
    ``options`` (values already named by the platform, e.g. Discord's typed slash-command
    options). The registry parses whichever it got, once, into the command's parameters, so
    handlers never see raw words. ``flags`` are the words that change delivery, not content
    (``public``), when the platform gives them apart (Discord's option).
    """

    command: str
    args: tuple[str, ...] = ()
    text: str | None = None
    options: Mapping[str, object] = field(default_factory=dict)
    flags: frozenset[str] = frozenset()
    repo: str | None = None
    lang: Lang = "en"
    timezone: str = "UTC"
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    platform: str = "cli"
    user: str | None = None
    is_admin: bool = False
    channel: str | None = None  # where a chat command was typed (subscriptions are per channel)
    # Which repositories this invocation may act on: None (the CLI) any; chat front ends pass
    # PRDIGEST_REPO, and an empty tuple means "only those already in the cache".
    allowed_repos: tuple[str, ...] | None = None
    # How the terminal user invoked prdigest (``prdigest``, ``.venv/bin/prdigest``): the hints of
    # a terminal answer print it, so that they run as printed.
    program: str = "prdigest"


@dataclass(slots=True, kw_only=True)
class PRRef:
    """A PR as a renderer needs it: number, title (untrusted text), link."""

    number: int
    title: str
    url: str
    author: str = ""


@dataclass(slots=True, kw_only=True)
class Heading:
    text: str
    level: int = 2


@dataclass(slots=True, kw_only=True)
class Paragraph:
    """Plain prose; optional PRs are rendered as links after the text."""

    text: str
    prs: list[PRRef] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class Bullet:
    text: str
    prs: list[PRRef] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class BulletList:
    items: list[Bullet]
    ordered: bool = False
    start: int = 1
    """the number of the first item of an ordered list (a list continued from an earlier one)"""


@dataclass(slots=True, kw_only=True)
class PRItem:
    """One PR with short tags (modules, flags, 'key') and detail lines (gist, evidence, score)."""

    pr: PRRef
    tags: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class Facts:
    """Label/value pairs, e.g. the executive summary's counts."""

    items: list[tuple[str, str]]


@dataclass(slots=True, kw_only=True)
class Table:
    columns: list[str]
    rows: list[list[str]]


@dataclass(slots=True, kw_only=True)
class Divider:
    """A rule between parts of a reply."""


@dataclass(slots=True, kw_only=True)
class Image:
    """A picture (the digest's chart). ``name`` names the file a poster uploads with the message
    (``Reply.files``); ``url`` is set when the picture is already on the web. ``alt`` is what
    readers without images get, so every renderer can fall back to it."""

    name: str
    alt: str
    url: str = ""


Block = Heading | Paragraph | BulletList | PRItem | Facts | Table | Divider | Image


@dataclass(slots=True, kw_only=True)
class Section:
    """A titled part of a long answer; chat posts each in the lead message's thread. ``key``
    names the part whatever the language or the wording (``risks``): a scheduled delivery keys
    the message that carries it by this, so that the message can be found again."""

    title: str
    blocks: list[Block] = field(default_factory=list)
    key: str = ""


@dataclass(slots=True, kw_only=True)
class Attachment:
    """A file that goes with the reply (the chart's PNG); never part of the JSON output.
    ``description`` is its alt text where the platform keeps one (Discord)."""

    name: str
    content_type: str
    data: bytes
    description: str = ""


@dataclass(slots=True, kw_only=True)
class NotCached:
    """The typed outcome of ``pr`` for a PR missing from the cache: the edges may fetch it."""

    repo: str
    number: int


@dataclass(slots=True, kw_only=True)
class ProsePart:
    """A part of a reply a language model may word from the computed facts (``bot.prose``).

    ``blocks[start:stop]`` of ``sections[section]`` are the computed lines it would replace;
    ``facts`` (plain JSON) is everything the model is given and everything its sentences are
    checked against (``commands.prose.verify``); ``refs`` are the links of the PRs it may cite,
    kept apart from the facts because rendering and links stay ours. ``kind`` is ``theme``,
    ``key_prs`` or ``risks``; ``key`` names the part in the JSON output (``theme:2``).
    """

    key: str
    kind: str
    section: int
    start: int
    stop: int
    facts: dict[str, Any]
    refs: dict[int, PRRef] = field(default_factory=dict)


class ReplyData:
    """A reply's JSON form, or how to build it the first time someone reads it.

    A digest's JSON form lists every PR of the period and costs a quarter of composing it, yet the
    text, Markdown, Slack and Discord renderers never look at it: the digest hands over a builder
    instead of the dict, and the first read (the JSON renderer, the chart) runs it once. Copies of
    a reply (``dataclasses.replace``) share this holder, as they shared the dict before, so the
    dict is built at most once and a change made through one copy is seen by all.
    """

    __slots__ = ("_build", "_value")

    def __init__(
        self, value: dict[str, Any] | None = None, build: Callable[[], dict[str, Any]] | None = None
    ) -> None:
        self._value = value
        self._build = build

    @property
    def built(self) -> bool:
        return self._value is not None

    def get(self) -> dict[str, Any]:
        value = self._value
        if value is None:
            # The builder is dropped only once its dict is stored: a second thread reading meanwhile
            # builds the same dict again rather than finding neither (and answering ``{}``).
            build = self._build
            value = build() if build is not None else {}
            self._value, self._build = value, None
        return value

    def update(self, items: Mapping[str, Any]) -> None:
        """Add keys at the end of the dict, now if it is built, else right after it is built."""
        if self._value is not None or self._build is None:
            self.get().update(items)
            return
        build = self._build
        extra = dict(items)

        def build_more() -> dict[str, Any]:
            out = build()
            out.update(extra)
            return out

        self._build = build_more

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReplyData) and self.get() == other.get()

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dict it stands for

    def __repr__(self) -> str:
        return repr(self.get())


@dataclass(slots=True, kw_only=True, init=False)
class Reply:
    """A command's answer. ``data`` is the stable JSON form; the blocks are what people read.

    ``blocks`` is the lead (all of a short answer; a digest's executive summary); ``sections``
    are the titled parts that follow (a chat digest posts the lead as one message and each
    section as a reply in its thread). ``lang`` is the caller's language, for the fixed words a
    renderer adds (the registry sets it). ``not_cached`` is set instead of an answer when ``pr``
    asked about a PR the cache does not hold. ``delivery_key`` marks a scheduled delivery: posters
    write it where a later attempt can find it (Slack: message metadata; Discord: the footer), so
    a crash between posting and recording never leads to a second post.

    ``data`` is either given (``data=``) or built on first read (``data_factory=``: see
    ``ReplyData``); readers see the same dict either way.

    ``prose`` builds, when called, the parts a language model may word (``ProsePart``): a digest
    sets it, and only an edge with a model configured calls it (``bot.prose``); None for every
    other answer, and for a digest asked with ``prose=off``.

    ``flags`` are the words the command was asked with that change where its answer goes, not
    what it says (``public``), as the registry parsed them: the chat front end that sends the
    answer reads them here rather than parsing the text again.
    """

    command: str
    status: Status
    lang: Lang
    title: str
    blocks: list[Block]
    sections: list[Section]
    files: list[Attachment]
    not_cached: NotCached | None
    delivery_key: str | None
    data_source: ReplyData
    prose: Callable[[], list[ProsePart]] | None = field(compare=False, repr=False)
    flags: frozenset[str] = field(compare=False)

    def __init__(
        self,
        *,
        command: str,
        status: Status = "ok",
        lang: Lang = "en",
        title: str = "",
        blocks: list[Block] | None = None,
        sections: list[Section] | None = None,
        data: dict[str, Any] | None = None,
        files: list[Attachment] | None = None,
        not_cached: NotCached | None = None,
        delivery_key: str | None = None,
        data_factory: Callable[[], dict[str, Any]] | None = None,
        data_source: ReplyData | None = None,
        prose: Callable[[], list[ProsePart]] | None = None,
        flags: frozenset[str] = frozenset(),
    ) -> None:
        if data is not None and data_factory is not None:
            raise TypeError("Reply: give data or data_factory, not both")
        self.command = command
        self.status = status
        self.lang = lang
        self.title = title
        self.blocks = [] if blocks is None else blocks
        self.sections = [] if sections is None else sections
        self.files = [] if files is None else files
        self.not_cached = not_cached
        self.delivery_key = delivery_key
        # ``data``/``data_factory`` win over ``data_source``: ``replace(reply, data=…)`` passes both
        if data_source is None or data is not None or data_factory is not None:
            data_source = ReplyData(data, data_factory)
        self.data_source = data_source
        self.prose = prose
        self.flags = flags

    @property
    def data(self) -> dict[str, Any]:
        """The JSON form (built now if the command deferred it)."""
        return self.data_source.get()

    @data.setter
    def data(self, value: dict[str, Any]) -> None:
        self.data_source = ReplyData(value)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @classmethod
    def usage(cls, command: str, message: str) -> Reply:
        """A one-line answer to bad input: what was wrong and what is accepted."""
        return cls(command=command, status="usage", title=message, data={"error": message})

    @classmethod
    def not_found(cls, command: str, message: str) -> Reply:
        return cls(command=command, status="not_found", title=message, data={"error": message})

    def all_blocks(self) -> list[Block]:
        """The lead, then each section as its heading and blocks: the reply read top to bottom."""
        out: list[Block] = list(self.blocks)
        for section in self.sections:
            out.append(Heading(text=section.title, level=2))
            out.extend(section.blocks)
        return out


# The commands an error message may name, as a terminal types them (``commands.registry.error_text``
# writes them for where the command was asked).
TERMINAL_HINTS = {"prog": "prdigest", "help": "prdigest help", "subscribe": "prdigest subscribe"}


def _english(key: str, values: Mapping[str, object]) -> str:
    """The English message as a terminal shows it (logs, the CLI's own commands); chat and the
    registry's answers show ``commands.registry.error_text``, which names the commands as typed
    where they were asked."""
    return t("en", key, **{**TERMINAL_HINTS, **values})


UsageError.words = _english
