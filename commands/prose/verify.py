"""The verifier: a model's answer for one part, checked against that part's facts.

Nothing a model writes is shown before it passes every check here; an answer that fails gets
one retry naming the failures (``bot.prose``), then the part keeps its computed lines. Checks,
per sentence:

- **citation**: it cites at least one PR, and every PR it cites (in ``prs`` or as ``#123`` in
  its text, which is moved to ``prs``) belongs to the part;
- **number**: every figure in it (``commands.prose.figures``) is one of the figures of the part's
  own lines or of the PRs it cites — same unit, no more precise than written there;
- **name**: every code or model name and version in it is written in those facts;
- **flag word**: "breaking", "security", "regression", "revert" (and their Chinese) only when a PR
  it cites is flagged so, or its own facts say so;
- **markup**: no link, mention, Markdown, HTML or emoji code (rendering and escaping stay ours);
- **language**: a Chinese digest gets Chinese sentences;

and per part: a theme gets 1–4 sentences; the key-PR view exactly one per key PR, each citing
its own PR only; the risk section at least one sentence per risk, citing that risk's PRs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from commands.locale import zh_spacing
from commands.prose.figures import FLAG_WORDS, Figure, flag_words, name_in, read, supports
from commands.prose.prompt import MAX_SENTENCE_CHARS

MAX_THEME_SENTENCES = 4
MIN_QUOTED_TITLE = 16  # a title this long, quoted, names its PR
CHECKS_VERSION = "2"  # part of the sentence cache's key (``commands.prose.key``): change it with the checks
_CJK = re.compile(r"[\u4e00-\u9fff]")
_MARKUP = re.compile(
    r"https?://|www\.|\]\(|[<>@`*|\\]|~~|[\n\r\t]|(?:^|\s)#(?!\d)|(?:^|[\s(（])_|_(?=$|[\s).,;:!?，。；：）])"
    r"|:[a-z0-9_+-]+:|&[a-z]+;|&#\d+;",
)
_REFS = re.compile(r"[（(]\s*#\d+(?:\s*(?:[,，、&/]|and|和|及)\s*#\d+)*\s*[)）]|#\d+")
_NUMBER_REF = re.compile(r"#(\d+)")


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence as it will be shown: its text (without PR numbers) and the PRs it cites."""

    text: str
    prs: tuple[int, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "prs": list(self.prs)}


@dataclass(frozen=True, slots=True)
class Problem:
    """One failed check: which (``citation``, ``number``, ``name``, ``flag_word``, ``markup``,
    ``language``, ``length``, ``count``, ``coverage``, ``json``, ``shape``), what, and in which
    sentence (1-based; None for the whole answer)."""

    check: str
    message: str
    sentence: int | None = None

    def __str__(self) -> str:
        where = f"sentence {self.sentence}: " if self.sentence is not None else ""
        return f"{where}{self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"check": self.check, "sentence": self.sentence, "message": self.message}


@dataclass(frozen=True, slots=True)
class Verdict:
    sentences: tuple[Sentence, ...]
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems and bool(self.sentences)


# -- the facts, indexed --------------------------------------------------------------------------


@dataclass
class FactIndex:
    """A part's facts as the checks read them: the part's own text, each PR's text and flags."""

    kind: str
    lang: str
    own: str = ""
    prs: dict[int, str] = field(default_factory=dict)
    flags: dict[int, set[str]] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    groups: list[tuple[str, list[int]]] = field(default_factory=list)
    titles: dict[int, str] = field(default_factory=dict)
    _figures: dict[int | None, tuple[Figure, ...]] = field(default_factory=dict)

    def figures(self, number: int | None) -> tuple[Figure, ...]:
        """The figures of the part's own text (None) or of one PR's."""
        if number not in self._figures:
            text = self.own if number is None else self.prs.get(number, "")
            self._figures[number] = read(text).figures
        return self._figures[number]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, bool):
        return
    elif isinstance(value, int | float):
        yield str(value)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _walk(value: Any, index: FactIndex, own: list[str]) -> None:
    if isinstance(value, dict):
        number = value.get("number")
        if isinstance(number, int) and not isinstance(number, bool):
            rest = {k: v for k, v in value.items() if k != "number"}
            text = "\n".join(_strings(rest))
            index.prs[number] = f"{index.prs[number]}\n{text}" if number in index.prs else text
            flags = index.flags.setdefault(number, set())
            flags.update(str(f.get("flag")) for f in value.get("flags", []) if isinstance(f, dict))
            if number not in index.order:
                index.order.append(number)
            if isinstance(value.get("title"), str):
                index.titles[number] = value["title"]
            return
        for k, v in value.items():
            if k == "language":
                continue
            if k == "prs" and isinstance(v, list):
                for item in v:
                    _walk(item, index, own)
            else:
                _walk(v, index, own)
    elif isinstance(value, list):
        for item in value:
            _walk(item, index, own)
    else:
        own.extend(_strings(value))


def index_facts(facts: dict[str, Any]) -> FactIndex:
    lang = "zh" if str(facts.get("language", "")).endswith("(zh)") else "en"
    index = FactIndex(kind=str(facts.get("part", "")), lang=lang)
    own: list[str] = []
    _walk(facts, index, own)
    index.own = "\n".join(own)
    for risk in facts.get("risks", []):
        numbers = [p["number"] for p in risk.get("prs", []) if isinstance(p, dict) and "number" in p]
        index.groups.append((str(risk.get("risk", "")), numbers))
    return index


# -- reading an answer ---------------------------------------------------------------------------


def _json(content: str) -> Any:
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        return json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(text[start : end + 1])
            except ValueError:
                return None
        return None


def _number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("#").isdigit():
        return int(value.strip().lstrip("#"))
    return None


def parse_answer(content: str) -> tuple[list[tuple[str, list[int]]], list[Problem]]:
    """The sentences of an answer (text, cited numbers), or what is wrong with its form."""
    data = _json(content)
    if data is None:
        return [], [Problem("json", "the answer is not JSON")]
    if not isinstance(data, dict) or not isinstance(data.get("sentences"), list):
        return [], [Problem("shape", 'the answer has no "sentences" list')]
    out: list[tuple[str, list[int]]] = []
    problems = []
    for i, item in enumerate(data["sentences"], 1):
        text = item.get("text") if isinstance(item, dict) else None
        cited = item.get("prs", []) if isinstance(item, dict) else None
        if not isinstance(text, str) or not isinstance(cited, list):
            problems.append(Problem("shape", 'each sentence needs "text" and a "prs" list', i))
            continue
        numbers = [_number(c) for c in cited]
        if any(n is None for n in numbers):
            problems.append(Problem("shape", '"prs" must hold PR numbers', i))
            continue
        out.append((text, [n for n in numbers if n is not None]))
    return out, problems


# -- checking one sentence -----------------------------------------------------------------------


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _tidy(text: str, cited: set[int], lang: str) -> str:
    """The text as it will be shown: the PR numbers it cites moved out (the renderers link them
    after the text), a code span's backticks dropped (code names stay as written; the renderers
    escape them), Chinese spaced from Latin letters and digits as the computed text is."""

    def cut(m: re.Match[str]) -> str:
        return "" if all(int(x) in cited for x in _NUMBER_REF.findall(m.group(0))) else m.group(0)

    text = _CODE_SPAN.sub(r"\1", _REFS.sub(cut, text))
    if lang == "zh":
        text = zh_spacing(text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.;:!?，。；：！？、）)])", r"\1", text)
    return re.sub(r"([（(])\s+", r"\1", text)


def _pieces(name: str) -> Iterable[str]:
    """``Qwen3.5/3.6`` is checked as ``Qwen3.5`` and ``3.6``."""
    return (p for p in name.split("/") if p)


def check_sentence(index: FactIndex, n: int, text: str, cited: list[int]) -> tuple[Sentence, list[Problem]]:
    problems: list[Problem] = []
    raw = " ".join(text.split())
    problems += _mentions(index, n, raw, cited)
    # a PR number written in the text is a citation when it is one of the part's PRs; another
    # one may only be quoted from the facts (the PR a revert undoes)
    in_text = [x for x in map(int, _NUMBER_REF.findall(raw)) if x in index.prs]
    numbers = list(dict.fromkeys([*cited, *in_text]))
    clean = _tidy(raw, set(numbers), index.lang)
    sentence = Sentence(clean, tuple(numbers))
    if not clean:
        return sentence, [Problem("shape", "the sentence is empty", n)]
    if len(clean) > MAX_SENTENCE_CHARS:
        problems.append(Problem("length", f"longer than {MAX_SENTENCE_CHARS} characters", n))
    foreign = [x for x in numbers if x not in index.prs]
    for x in foreign:
        problems.append(Problem("citation", f"cites #{x}, which is not a PR of this part", n))
    if index.prs and not numbers:
        problems.append(Problem("citation", "cites no PR", n))
    bad = _MARKUP.search(clean)
    if bad:
        problems.append(
            Problem("markup", f"contains markup, a link or a mention ({bad.group(0).strip()!r})", n)
        )
    if index.lang == "zh" and len(_CJK.findall(clean)) < 2:
        problems.append(Problem("language", "is not written in Chinese", n))
    own = [x for x in numbers if x in index.prs]
    problems += _grounding(index, n, clean, own)
    return sentence, problems


def _mentions(index: FactIndex, n: int, text: str, cited: list[int]) -> list[Problem]:
    """PR numbers in the text that are not the part's: each must be quoted from the facts."""
    texts = [index.own, *(index.prs.get(x, "") for x in cited)]
    out = []
    for x in dict.fromkeys(map(int, _NUMBER_REF.findall(text))):
        if x not in index.prs and not any(re.search(rf"#{x}(?!\d)", t) for t in texts):
            out.append(Problem("citation", f"names #{x}, which is not a PR of this part", n))
    return out


_NUMBERED = re.compile(r"\b([A-Z][A-Za-z]{2,})[ -](\d+(?:\.\d+)?)(?![\d.]*\s*(?:%|x\b|×|倍))")


def _numbered_names(n: int, text: str, texts: list[str]) -> list[Problem]:
    """A name with its number apart ("Llama 4", "Gemma 3"): when the facts write that name with
    a number, they must write it with this one (a changed version reads as an ordinary count)."""
    out = []
    for m in _NUMBERED.finditer(text):
        word, number = m.group(1), m.group(2)
        numbered = re.compile(rf"\b{re.escape(word)}[ -]?\d", re.IGNORECASE)
        if not any(numbered.search(t) for t in texts):
            continue
        forms = (f"{word} {number}", f"{word}-{number}", f"{word}{number}")
        if not any(name_in(f, t) for f in forms for t in texts):
            out.append(Problem("name", f"{m.group(0)!r} is not written in the facts it cites", n))
    return out


def _grounding(index: FactIndex, n: int, text: str, cited: list[int]) -> list[Problem]:
    """Figures, names and flag words of ``text`` against the part's text and the cited PRs'."""
    problems: list[Problem] = []
    reading = read(text)
    pool = [*index.figures(None), *(f for x in cited for f in index.figures(x))]
    for fig in reading.figures:
        if not any(supports(fact, fig) for fact in pool):
            problems.append(Problem("number", f"{fig.shown()!r} is not in the facts it cites", n))
    texts = [index.own, *(index.prs[x] for x in cited)]
    for name in reading.names:
        if not all(any(name_in(p, t) for t in texts) for p in _pieces(name)):
            problems.append(Problem("name", f"{name!r} is not written in the facts it cites", n))
    problems += _numbered_names(n, text, texts)
    for other, title in index.titles.items():
        if other not in cited and len(title) >= MIN_QUOTED_TITLE and title.lower() in text.lower():
            problems.append(Problem("citation", f"quotes the title of #{other} without citing it", n))
    for concept in flag_words(text):
        pattern, kinds = FLAG_WORDS[concept]
        flagged = any(index.flags.get(x, set()) & kinds for x in cited)
        described = any(pattern.search(index.prs[x]) for x in cited)
        if not (flagged or described):
            problems.append(Problem("flag_word", f"calls it {concept}, which no PR it cites is", n))
    return problems


# -- checking an answer --------------------------------------------------------------------------


def _part_checks(index: FactIndex, sentences: list[Sentence]) -> tuple[list[Sentence], list[Problem]]:
    """The checks of a part as a whole; the key-PR sentences put in the order of the PRs."""
    if not sentences:
        return sentences, [Problem("count", "the answer has no sentences")]
    if index.kind == "theme" and len(sentences) > MAX_THEME_SENTENCES:
        return sentences, [
            Problem("count", f"{len(sentences)} sentences; write at most {MAX_THEME_SENTENCES}")
        ]
    if index.kind == "key_prs":
        return _one_per_pr(index, sentences)
    if index.kind == "risks":
        missing = [
            kind for kind, numbers in index.groups if not any(set(s.prs) & set(numbers) for s in sentences)
        ]
        if missing:
            return sentences, [Problem("coverage", f"no sentence about the {', '.join(missing)} risk")]
    return sentences, []


def _one_per_pr(index: FactIndex, sentences: list[Sentence]) -> tuple[list[Sentence], list[Problem]]:
    problems = []
    by_pr: dict[int, Sentence] = {}
    for i, s in enumerate(sentences, 1):
        if len(s.prs) != 1:
            problems.append(Problem("citation", "cite exactly one PR per sentence here", i))
        elif s.prs[0] in by_pr:
            problems.append(Problem("count", f"a second sentence about #{s.prs[0]}", i))
        else:
            by_pr[s.prs[0]] = s
    missing = [x for x in index.order if x not in by_pr]
    if missing:
        listed = ", ".join(f"#{x}" for x in missing)
        problems.append(Problem("coverage", f"no sentence for {listed}"))
    return [by_pr[x] for x in index.order if x in by_pr], problems


def verify(facts: dict[str, Any], content: str) -> Verdict:
    """A model's answer (the message text) checked against the facts it was given."""
    index = index_facts(facts)
    raw, problems = parse_answer(content)
    sentences = []
    for n, (text, cited) in enumerate(raw, 1):
        sentence, found = check_sentence(index, n, text, cited)
        sentences.append(sentence)
        problems += found
    if problems:
        return Verdict(tuple(sentences), tuple(problems))
    ordered, found = _part_checks(index, sentences)
    return Verdict(tuple(ordered), tuple(found))
