"""The figures, names and flag words of a text, read the same way from facts and from sentences.

A model's sentence may only say what the facts say. Three kinds of token carry a claim that can
be checked without understanding the sentence:

- **figures**: digits (``16``, ``13.5``, ``1,289``), ranges (``16–24%``, ``5-8%``), numbers in
  words (``two``, ``twice``) and Chinese numerals before a measure word or unit (``三个``,
  ``两倍``, ``百分之二十``), each with its unit (``%``, ``x`` for ×/倍/times, ``ms``, ``GB``,
  ``lines``/行 …) and the precision it is written at (``13.5``: tenths; ``1.4k``: hundreds);
- **names**: code and model names — tokens with a digit (``Qwen3.5``, ``H100``, ``FP8``), an
  underscore (``load_weights``), a dotted path (``torch.compile``) or inner capitals
  (``AutoWeightsLoader``, ``ROCm``) — and versions (``0.2.0``), which must be found as written;
- **flag words**: breaking, security, regression, revert (English and Chinese), which may only
  be said of PRs the facts flag or describe that way.

Plain words, all-capital acronyms (``GPU``, ``CI``) and a lone 一/one (an article as often as a
number) are not claims the verifier can check, and are left alone.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

# -- normalising ---------------------------------------------------------------------------------

_PR_REF = re.compile(r"#\d+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def normal(text: str) -> str:
    """Full-width forms folded (``１６％`` → ``16%``, NFKC), PR references (``#123``) blanked —
    they are citations, checked as such — and thousands separators dropped (``1,289`` → ``1289``)."""
    folded = unicodedata.normalize("NFKC", text)
    return _THOUSANDS.sub("", _PR_REF.sub(" ", folded))


# -- figures -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Figure:
    """A number as written: its value, the step it is written to (1 for ``16``, 0.1 for
    ``13.5``, 100 for ``1.4k``), its unit ("" when none) and the text it was read from."""

    value: Decimal
    step: Decimal
    unit: str
    text: str

    def shown(self) -> str:
        return self.text.strip()


# A unit right after a number (spaces allowed), longest first; each maps to one canonical name.
_UNITS: tuple[tuple[str, str], ...] = (
    (r"个百分点|percentage points?\b|pp\b", "pp"),
    (r"%|percent\b|per cent\b", "%"),
    (r"[x×X](?![A-Za-z0-9])|times\b|-?fold\b|倍", "x"),
    (r"[μµu]s\b|微秒|microseconds?\b", "us"),
    (r"ns\b|纳秒|nanoseconds?\b", "ns"),
    (r"ms\b|毫秒|milliseconds?\b", "ms"),
    (r"min\b|mins\b|minutes?\b|分钟", "min"),
    (r"h\b|hrs?\b|hours?\b|小时", "h"),
    (r"s\b|secs?\b|seconds?\b|秒", "s"),
    (r"GiB\b|GiB/s", "GiB"),
    (r"GB\b|GB/s", "GB"),
    (r"MiB\b", "MiB"),
    (r"MB\b", "MB"),
    (r"KiB\b", "KiB"),
    (r"KB\b|kB\b", "KB"),
    (r"TB\b", "TB"),
    (r"tok(?:en)?s?/s\b|tokens? per second", "tok/s"),
    (r"req(?:uest)?s?/s\b|requests? per second", "req/s"),
    (r"lines?\b|LOC\b|行", "lines"),
)
_UNIT = re.compile(r"\s*(?:" + "|".join(f"(?P<u{i}>{p})" for i, (p, _) in enumerate(_UNITS)) + ")")
_UNIT_NAMES = {f"u{i}": name for i, (_, name) in enumerate(_UNITS)}
# words that scale a number before its unit ("1.4k lines", "2 千行", "1.2 million")
_SCALE = re.compile(
    r"(?:(?P<k>[kK])(?![A-Za-z])|\s*(?P<th>thousand\b|千)|\s*(?P<wan>万)|\s*(?P<m>million\b|百万))"
)
_SCALES = {"k": Decimal(1000), "th": Decimal(1000), "wan": Decimal(10000), "m": Decimal(1_000_000)}
_RANGE_GLUE = re.compile(r"^\s*(?:[-–—~～]|to|至|到)\s*$")

_NUM = r"\d+(?:\.\d+)?"
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*(?:[.\-/][A-Za-z0-9_]+)*")
_NUMBER = re.compile(rf"^{_NUM}$")
_RANGE = re.compile(rf"^({_NUM})-({_NUM})$")
_WITH_UNIT = re.compile(rf"^({_NUM})(x|X|ms|us|ns|s|min|h|GB|GiB|MB|MiB|KB|KiB|TB|k|K)$")
_VERSION = re.compile(r"^\d+(?:[.\-]\d+){2,}$")  # 0.2.0, 2026-04-30
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z].*[A-Z].*[a-z]|[a-z].*[A-Z].*[A-Z]")


def _decimal(text: str) -> tuple[Decimal, Decimal]:
    """``"13.5"`` → (13.5, 0.1): the value and the step of its last digit."""
    value = Decimal(text)
    places = len(text.split(".", 1)[1]) if "." in text else 0
    return value, Decimal(1).scaleb(-places)


def _unit_after(text: str, pos: int) -> tuple[str, Decimal, int]:
    """The unit (and scale) written right after position ``pos``: (unit, scale, end)."""
    scale = Decimal(1)
    m = _SCALE.match(text, pos)
    if m:
        scale = _SCALES[m.lastgroup or "k"]
        pos = m.end()
    u = _UNIT.match(text, pos)
    if u:
        return _UNIT_NAMES[u.lastgroup or ""], scale, u.end()
    return "", scale, pos


@dataclass
class _Found:
    start: int
    end: int
    figure: Figure


def _figure(text: str, start: int, end: int, number: str, unit: str | None = None) -> _Found:
    value, step = _decimal(number)
    scale = Decimal(1)
    stop = end
    if unit is None:
        unit, scale, stop = _unit_after(text, end)
    elif unit in ("k", "K"):
        scale = Decimal(1000)
        unit, _, stop = _unit_after(text, end)
    else:
        unit = {"X": "x", "us": "us"}.get(unit, unit)
    return _Found(start, stop, Figure(value * scale, step * scale, unit, text[start:stop]))


# numbers in English words (``one`` and ``a`` are left out: articles as often as numbers)
_SMALL = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_TIMES_WORDS = {"twice": 2, "double": 2, "doubled": 2, "doubles": 2, "triple": 3, "tripled": 3, "triples": 3}
_HUNDRED = re.compile(r"\s+(hundred|thousand)\b")


def _word_number(word: str) -> int | None:
    low = word.lower()
    if low in _SMALL:
        return _SMALL[low]
    if low in _TENS:
        return _TENS[low]
    head, _, tail = low.partition("-")
    if head in _TENS and tail in _SMALL and _SMALL[tail] < 10:
        return _TENS[head] + _SMALL[tail]
    return None


def _words_figure(text: str, m: re.Match[str]) -> _Found | None:
    word = m.group(0)
    if word.lower() in _TIMES_WORDS:
        value = Decimal(_TIMES_WORDS[word.lower()])
        return _Found(m.start(), m.end(), Figure(value, Decimal(1), "x", word))
    n = _word_number(word)
    if n is None:
        return None
    end = m.end()
    value, step = Decimal(n), Decimal(1)
    more = _HUNDRED.match(text, end)
    if more:
        factor = Decimal(100 if more.group(1) == "hundred" else 1000)
        value, step, end = value * factor, step * factor, more.end()
    unit, scale, stop = _unit_after(text, end)
    return _Found(m.start(), stop, Figure(value * scale, step * scale, unit, text[m.start() : stop]))


# Chinese numerals: counted only before a measure word or a unit (or after 第 / 百分之), so
# 统一, 唯一, 进一步, 第三方 or 千万 (by all means) are words, not numbers.
_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_ZH_NUMERAL = re.compile(r"(百分之)?([零〇一二两三四五六七八九十百千万]+)")
_MEASURE = re.compile(r"[个项次倍行条种类位组家款处份周天名件层步轮批套张台块例]|毫秒|微秒|纳秒|秒|分钟|小时")


def _zh_value(chars: str) -> int | None:
    """``三`` → 3, ``十二`` → 12, ``二十五`` → 25, ``一百`` → 100, ``1400`` has no numeral → None."""
    total, section, digit = 0, 0, None
    for ch in chars:
        if ch in _ZH_DIGITS:
            if digit is not None:  # 一二: not a number as written
                return None
            digit = _ZH_DIGITS[ch]
        elif ch == "万":
            section += digit or 0
            total += (section or 1) * 10000
            section, digit = 0, None
        else:
            section += (1 if digit is None else digit) * _ZH_UNITS[ch]
            digit = None
    return total + section + (digit or 0)


def _zh_figure(text: str, m: re.Match[str]) -> _Found | None:
    percent, chars = m.group(1), m.group(2)
    before = text[m.start() - 1 : m.start()] if m.start() else ""
    after = _MEASURE.match(text, m.end())
    if not (percent or after or before == "第") or text[m.end() : m.end() + 1] == "方":
        return None  # 第三方: "third-party"
    if chars in ("一", "千万", "万一") and not percent and not (after and after.group(0) == "倍"):
        return None  # 一个: "a"; 千万: "by all means"
    value = _zh_value(chars)
    if value is None:
        return None
    unit, _, stop = ("%", Decimal(1), m.end()) if percent else _unit_after(text, m.end())
    return _Found(m.start(), stop, Figure(Decimal(value), Decimal(1), unit, text[m.start() : stop]))


@dataclass(frozen=True, slots=True)
class Reading:
    """What a text claims that can be checked: its figures, names and versions."""

    figures: tuple[Figure, ...]
    names: tuple[str, ...]


# the words ``_words_figure`` may read as numbers (every other word is skipped at once)
_WORD = re.compile(
    r"\b(?:" + "|".join([*_SMALL, *_TENS, *_TIMES_WORDS]) + r")(?:-[A-Za-z]+)?\b",
    re.IGNORECASE,
)


_ALPHA = re.compile(r"[A-Za-z]")
_DIGIT_OR_UNDERSCORE = re.compile(r"[\d_]|[A-Za-z]\.[A-Za-z]")


def _is_name(token: str) -> bool:
    if not _ALPHA.search(token):
        return False
    return bool(_DIGIT_OR_UNDERSCORE.search(token) or _CAMEL.search(token))


def read(text: str) -> Reading:
    """The figures and names of ``text`` (see the module docstring)."""
    text = normal(text)
    found: list[_Found] = []
    names: list[str] = []
    taken = bytearray(len(text))  # 1 where a token already read lies: not read again as words
    for m in _TOKEN.finditer(text):
        token, start, end = m.group(0), m.start(), m.end()
        if token.isalpha():  # most tokens: a plain word, or a name by its capitals
            if _CAMEL.search(token):
                names.append(token)
            continue
        if _NUMBER.match(token):
            found.append(_figure(text, start, end, token))
        elif r := _RANGE.match(token):
            second = _figure(text, start + len(r.group(1)) + 1, end, r.group(2))
            first = _Found(start, start + len(r.group(1)), Figure(*_decimal(r.group(1)), "", r.group(1)))
            found += [first, second]
        elif u := _WITH_UNIT.match(token):
            found.append(_figure(text, start, end, u.group(1), u.group(2)))
        elif _VERSION.match(token) or _is_name(token):
            names.append(token)
        else:
            continue
        taken[start:end] = b"\x01" * (end - start)
    for m in _WORD.finditer(text):
        if taken[m.start()]:
            continue
        hit = _words_figure(text, m)
        if hit is not None:
            found.append(hit)
    for m in _ZH_NUMERAL.finditer(text):
        hit = _zh_figure(text, m)
        if hit is not None:
            found.append(hit)
    found.sort(key=lambda f: f.start)
    return Reading(tuple(_ranges(text, found)), tuple(names))


def _ranges(text: str, found: list[_Found]) -> list[Figure]:
    """A range's first number takes the unit of its second (``16–24%``: both are percentages)."""
    out = [f.figure for f in found]
    for i in range(len(found) - 1):
        a, b = found[i], found[i + 1]
        if not a.figure.unit and b.figure.unit and _RANGE_GLUE.match(text[a.end : b.start]):
            out[i] = Figure(a.figure.value, a.figure.step, b.figure.unit, a.figure.text)
    return out


# -- matching ------------------------------------------------------------------------------------


def rounded(value: Decimal, step: Decimal) -> Decimal:
    try:
        return (value / step).quantize(Decimal(1), rounding=ROUND_HALF_UP) * step
    except InvalidOperation:
        return value


def supports(fact: Figure, said: Figure) -> bool:
    """Whether ``said`` may stand for ``fact``: the same unit (or none said), no more precise than
    the fact is written, and equal to the fact rounded to the precision said (13.5% → 14%, never
    13.52%; 16 stays 16)."""
    if said.unit and said.unit != fact.unit:
        return False
    if said.step < fact.step:
        return False
    return rounded(fact.value, said.step) == said.value


def name_in(name: str, text: str) -> bool:
    """Whether ``name`` occurs in ``text`` (both folded to lower case), not as a part of a longer
    number: ``V3`` is not in ``DeepSeek-V3.2``, ``H100`` not in ``H1000``; letters may run on
    (``DeepSeek`` is in ``DeepSeekV2``)."""
    needle, hay = name.lower(), text.lower()
    start = hay.find(needle)
    while start != -1:
        end = start + len(needle)
        before = hay[start - 1] if start else ""
        after = hay[end : end + 2]
        left_ok = not (needle[0].isdigit() and (before.isdigit() or before == "."))
        right_ok = not (needle[-1].isdigit() and after[:1].isdigit())
        right_ok = right_ok and not (needle[-1].isdigit() and after[:1] == "." and after[1:2].isdigit())
        if left_ok and right_ok:
            return True
        start = hay.find(needle, start + 1)
    return False


# -- flag words ----------------------------------------------------------------------------------

# concept → (pattern, the flag kinds that allow it)
FLAG_WORDS: dict[str, tuple[re.Pattern[str], frozenset[str]]] = {
    "breaking": (
        re.compile(
            r"\bbreak(?:s|ing)?\b(?!\s+down)|\bincompatib\w*|破坏性|不兼容|不向后兼容|兼容性破坏|破坏兼容",
            re.IGNORECASE,
        ),
        frozenset({"breaking"}),
    ),
    "security": (
        re.compile(
            r"\bsecurity\b|\bvulnerab\w*|\bCVE-\d|\bexploit\w*|安全漏洞|安全问题|安全修复|安全风险|安全补丁|漏洞",
            re.IGNORECASE,
        ),
        frozenset(),
    ),
    "regression": (
        re.compile(r"\bregress\w*\b(?!\s+tests?)|回归(?!测试)", re.IGNORECASE),
        frozenset(),
    ),
    "revert": (
        re.compile(r"\brevert\w*|\broll(?:s|ed|ing)?[- ]?back\b|\brollback\b|回滚|撤销|撤回", re.IGNORECASE),
        frozenset({"revert"}),
    ),
}


def flag_words(text: str) -> list[str]:
    """The flag concepts ``text`` names (breaking, security, regression, revert)."""
    return [concept for concept, (pattern, _) in FLAG_WORDS.items() if pattern.search(text)]
