"""Verified sentences in place of a part's computed lines: Reply in, Reply out.

Only sentences that passed ``commands.prose.verify`` get here. A model-written part becomes a
list of its sentences, each with the links of the PRs it cites (rendered by our renderers, as
every link is); a key PR keeps its title in front of its sentence. A section with model-written
parts ends with a short note saying so. The JSON form gains ``prose``: for every part whether
its sentences are the model's or computed, and which checks failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from commands.locale import t
from commands.locale.words import join_list
from commands.model import Block, Bullet, BulletList, Paragraph, ProsePart, Reply, ReplyData, Section
from commands.prose.verify import Problem, Sentence

_SECTION_NAMES = {"theme": "themes", "risks": "risks", "key_prs": "key_prs"}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one part: verified ``sentences``, or None and why it stays computed
    (``problems`` of the last answer checked, ``reason``: ``checks_failed``, ``timeout``,
    ``rate_limited``, ``unavailable``, ``request_budget``, ``error``). ``cached``: read from the
    sentence cache rather than asked for."""

    part: ProsePart
    sentences: tuple[Sentence, ...] | None
    problems: tuple[Problem, ...] = ()
    reason: str = ""
    cached: bool = False

    @property
    def written(self) -> bool:
        return self.sentences is not None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "part": self.part.key,
            "section": _SECTION_NAMES.get(self.part.kind, self.part.kind),
            "prose": "model" if self.written else "computed",
            "cached": self.cached,
        }
        if self.sentences is not None:
            out["sentences"] = [s.as_dict() for s in self.sentences]
        else:
            out["reason"] = self.reason
        out["failed"] = [p.as_dict() for p in self.problems]
        return out


def _blocks(outcome: Outcome, lang: str, replaced: Sequence[Block] = ()) -> list[Block]:
    """The part's sentences as blocks; a list of key PRs numbered on as the one it ``replaced``
    (the quick view continues the lead's numbering)."""
    part, sentences = outcome.part, outcome.sentences or ()
    refs = part.refs
    if part.kind == "key_prs":
        titles = {p["number"]: p["title"] for p in part.facts.get("prs", [])}
        dash = t(lang, "punct.dash")
        items = [Bullet(text=titles[s.prs[0]] + dash + s.text, prs=[refs[s.prs[0]]]) for s in sentences]
        first = next((b.start for b in replaced if isinstance(b, BulletList) and b.ordered), 1)
        return [BulletList(items=items, ordered=True, start=first)]
    return [
        BulletList(items=[Bullet(text=s.text, prs=[refs[x] for x in s.prs if x in refs]) for s in sentences])
    ]


def _note(section: int, outcomes: Sequence[Outcome], lang: str) -> Paragraph | None:
    mine = [o for o in outcomes if o.part.section == section]
    written = [o for o in mine if o.written]
    if not written:
        return None
    if len(written) < len(mine) and all(o.part.kind == "theme" for o in written):
        numbers = [o.part.key.split(":", 1)[1] for o in written]
        return Paragraph(text=t(lang, "prose.note_themes", themes=join_list(numbers, lang)))
    return Paragraph(text=t(lang, "prose.note"))


def apply_prose(reply: Reply, outcomes: Sequence[Outcome], model: str) -> Reply:
    """``reply`` with every written part's lines replaced, a note per section that has any, and
    the ``prose`` report in its JSON form. The original reply is left as it was."""
    sections = list(reply.sections)
    for index in sorted({o.part.section for o in outcomes if o.written}):
        if index >= len(sections):
            continue
        blocks = list(sections[index].blocks)
        # from the last part to the first, so earlier positions stay where they were
        for o in sorted(
            (o for o in outcomes if o.written and o.part.section == index), key=lambda o: -o.part.start
        ):
            replaced = blocks[o.part.start : o.part.stop]
            blocks[o.part.start : o.part.stop] = _blocks(o, reply.lang, replaced)
        note = _note(index, outcomes, reply.lang)
        if note is not None:
            blocks.append(note)
        sections[index] = Section(title=sections[index].title, blocks=blocks)
    original = reply.data_source
    report = {"model": model, "parts": [o.as_dict() for o in outcomes]}

    def data() -> dict[str, Any]:
        return {**original.get(), "prose": report}

    return replace(reply, sections=sections, data_source=ReplyData(build=data), prose=None)
