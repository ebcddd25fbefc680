"""Packing a long answer into messages that each stay within a platform's limits.

One greedy packer for every platform: it takes the limits (how many items a message may hold and
how large it may grow) and a function that measures an item in the platform's own terms (Slack:
characters of block JSON; Discord: characters summed over an embed's fields), so the renderers
keep only their markup. ``split_text`` cuts a text that is too long for one item at points the
platform's markup allows (never inside a link or an entity) and drops nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Budget:
    """What one message may hold: ``items`` (blocks, embeds, lines) and ``size`` in the measure's
    unit; ``overhead`` is the size of an empty message (e.g. the ``[]`` around a JSON list)."""

    items: int
    size: int
    overhead: int = 0

    def less(self, items: int = 0, size: int = 0) -> Budget:
        """This budget with room kept back (a lead message keeps room for its thread pointer)."""
        return Budget(self.items - items, self.size - size, self.overhead)


def pack(
    items: Iterable[T],
    budget: Budget,
    measure: Callable[[T], int],
    keep_with_next: Callable[[T], bool] | None = None,
) -> list[list[T]]:
    """Greedy, order-preserving packing: a new message starts when the next item would break
    the budget. An item larger than a whole message gets a message of its own (the renderer
    splits such items beforehand with ``split_text``, so this only happens on misuse).

    ``keep_with_next`` marks items that must not end a message (a heading: left alone at the
    bottom of one message, its content at the top of the next); they move on with what follows."""
    messages: list[list[T]] = []
    current: list[T] = []
    size = budget.overhead
    for item in items:
        n = measure(item)
        if current and (len(current) + 1 > budget.items or size + n > budget.size):
            carried = _trailing(current, keep_with_next)
            if carried and len(carried) < len(current):
                del current[-len(carried) :]
            else:
                carried = []
            messages.append(current)
            current, size = carried, budget.overhead + sum(measure(c) for c in carried)
            if current and (len(current) + 1 > budget.items or size + n > budget.size):
                messages.append(current)  # heading and content cannot share a message at all
                current, size = [], budget.overhead
        current.append(item)
        size += n
    if current:
        messages.append(current)
    return messages


def _trailing(items: list[T], sticky: Callable[[T], bool] | None) -> list[T]:
    """The items at the end of ``items`` that ``sticky`` marks, in order."""
    if sticky is None:
        return []
    k = len(items)
    while k > 0 and sticky(items[k - 1]):
        k -= 1
    return items[k:]


def join_within(
    entries: Iterable[str],
    limit: int,
    sep: str = "\n",
    keep_with_next: Callable[[str], bool] | None = None,
) -> list[str]:
    """Short entries joined into as few texts of at most ``limit`` characters as order allows
    (a list of 400 PRs must not cost 400 blocks); an entry longer than ``limit`` stays alone.
    ``keep_with_next`` as for ``pack``: a heading entry never ends a text."""
    groups = pack(
        (e for e in entries if e),
        Budget(items=limit, size=limit + len(sep), overhead=0),
        lambda entry: len(entry) + len(sep),
        keep_with_next,
    )
    return [sep.join(group) for group in groups]


def outside_spans(cut: int, spans: Iterable[tuple[int, int]]) -> int:
    """``cut`` moved back to the opening of a markup span it falls inside (``spans``: the index
    of each span's opening and closing marker), so neither piece is left an unpaired marker. A
    span that opens the text stays cut: nothing earlier could be cut instead."""
    for start, end in spans:
        if start < cut <= end and start > 0:
            return start
    return cut


def split_text(text: str, limit: int, safe_cut: Callable[[str, int], int]) -> list[str]:
    """Cut ``text`` into pieces of at most ``limit`` characters at the points ``safe_cut``
    allows; nothing is dropped except the newline or space a cut lands on."""
    pieces: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = safe_cut(rest, limit)
        pieces.append(rest[:cut].rstrip("\n"))
        rest = rest[cut:]
        if rest[:1] in ("\n", " "):
            rest = rest[1:]
    if rest or not pieces:
        pieces.append(rest)
    return [p for p in pieces if p]
