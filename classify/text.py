"""PR description text: template stripping, the one-line gist, and measured-effect highlights.

PR bodies are mostly template (vLLM's "## Purpose / ## Test Plan / ## Test Result" plus an
"Essential Elements" checklist, HTML comments, DCO ``Signed-off-by`` trailers). Readers want the
author's own first sentence and any number they measured, so both are extracted here, with no
knowledge of any particular repository beyond common template habits.

Written for speed as much as for clarity: ``reclassify`` runs this over 200,000 bodies, so
whole-body work is limited to C-level string operations and regexes that start with a literal
or a digit (which the regex engine can skip to), and line-by-line Python stops early.
"""

from __future__ import annotations

import re

GIST_MAX = 200
HIGHLIGHT_MAX_CHARS = 120
MAX_HIGHLIGHTS = 3

# vLLM's template: "anything written below this line will be removed by GitHub Actions".
_CUT_MARK = "BEFORE SUBMITTING, PLEASE READ"
_TEMPLATE_WORDS = ("essential elements", "checklist")


def _remove_blocks(text: str, open_tag: str, close_tag: str, only_if: tuple[str, ...] = ()) -> str:
    """Remove ``open_tag … close_tag`` blocks (an unclosed one runs to the end) with str.find only.

    With ``only_if``, a block is removed only when it contains one of those words (any case).
    """
    parts = []
    pos = 0
    while True:
        start = text.find(open_tag, pos)
        if start == -1:
            break
        end = text.find(close_tag, start + len(open_tag))
        end = len(text) if end == -1 else end + len(close_tag)
        if only_if:
            block = text[start:end].lower()
            if not any(w in block for w in only_if):
                parts.append(text[pos:end])
                pos = end
                continue
        parts.append(text[pos:start])
        pos = end
    if not parts:
        return text
    parts.append(text[pos:])
    return "".join(parts)


_DROP_LINE = re.compile(
    r"\s*(?:(?:signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|change-id)\s*:"
    r"|[-*+]\s*\[[ xX]?\]"
    r"|PLEASE FILL IN THE PR DESCRIPTION"
    r"|</?(?:details|summary|br|hr|p|div|sub|sup)\b[^>]*>\s*$"
    r"|(?:-{3,}|\*{3,}|_{3,}|={3,})\s*$)",
    re.I,
)
# Something every line _DROP_LINE removes contains: only the lines around these are examined.
# Case-sensitive literal alternatives, so the regex engine skips quickly to candidate characters.
_DROP_MARKER = re.compile(
    r"-[bB][yY]:|Change-Id|\[[ xX]?\]|PLEASE FILL|</?(?:details|summary|br|hr|p|div|sub|sup)\b"
    r"|(?:---|\*\*\*|___|===)[-*_=]*[ \t]*(?=\n|\Z)"
)


def _drop_lines(text: str) -> str:
    """Remove trailer, checklist, template, bare-HTML and rule lines (found from their markers)."""
    drop: list[tuple[int, int]] = []
    last_start = -1
    for m in _DROP_MARKER.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        if start == last_start:
            continue
        last_start = start
        end = text.find("\n", m.end())
        end = len(text) if end == -1 else end
        if _DROP_LINE.match(text, start, end):
            drop.append((start, end + 1))
    if not drop:
        return text
    parts = []
    pos = 0
    for start, end in drop:
        parts.append(text[pos:start])
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def clean_body(body: str) -> str:
    """The description without template boilerplate, comments, checklists and trailers."""
    if not body:
        return ""
    text = body.replace("\r\n", "\n") if "\r" in body else body
    if "<!--" in text:
        text = _remove_blocks(text, "<!--", "-->")
    cut = text.find(_CUT_MARK)
    if cut != -1:
        text = text[: text.rfind("\n", 0, cut) + 1]
    if "<details" in text:
        text = _remove_blocks(text, "<details", "</details>", _TEMPLATE_WORDS)
    if "\n---" in text or "\n===" in text:  # "Description\n-----------": a heading, not a rule
        text = _SETEXT.sub(r"## \g<t>", text)
    return _drop_lines(text)


# a line of text underlined by a rule is a heading (markdown's setext form)
_SETEXT = re.compile(r"^(?P<t>[^\n\s#>|*+-][^\n]{0,59})\n(?:-{3,}|={3,})[ \t]*$", re.M)


# -- plain text -------------------------------------------------------------------------------------

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_HTML_TAG = re.compile(r"<[^>]{1,40}>")
BULLET = re.compile(r"\s*(?:[-*+]|\d{1,2}[.)])\s+")
_BULLET = BULLET


def plain(line: str) -> str:
    """Markdown line → plain text: links keep their text, emphasis and code marks go."""
    if "](" in line:
        line = _LINK.sub(r"\1", line)
    if "**" in line:
        line = line.replace("**", "")
    if "`" in line:
        line = line.replace("`", "")
    if "<" in line:
        line = _HTML_TAG.sub("", line)
    return " ".join(line.split())


def mid_sentence(text: str) -> str:
    """Text set after a qualifier or a semicolon: "Add tests" → "add tests"; an acronym, a name
    with capitals inside ("DMatrix") or code keeps its spelling."""
    first = text.split(" ", 1)[0]
    return (
        text[:1].lower() + text[1:]
        if first[:1].isupper() and first[1:].isalpha() and first[1:].islower()
        else text
    )


def without_final_period(text: str) -> str:
    """A title or list item without its closing full stop ("Drop the binary format." → "Drop the
    binary format"); an ellipsis and an abbreviation ("etc.", "e.g.") keep theirs."""
    if not text.endswith(".") or text.endswith("..") or _ABBREVIATION.search(text):
        return text
    return text[:-1].rstrip()


_ABBREVIATION = re.compile(r"(?:\b(?:etc|e\.g|i\.e|vs|cf|approx|incl)|\b[A-Za-z])\.$")


def shorten(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-–") + "…"


# -- highlights -------------------------------------------------------------------------------

_NUM = r"\d+(?:[.,]\d+)*"
_UNIT = (
    r"(?:µs|μs|us|ns|ms|s|sec|secs|seconds|min|mins|minutes|h|hours|GB|GiB|MB|MiB|KB|KiB|TB|"
    r"tok/s|tokens/s|toks/s|req/s|reqs/s|it/s|qps|QPS|%|x|×)"
)
_COMPARATIVE = r"(?:faster|slower|speed-?ups?|higher|lower|less|fewer|smaller|larger|improvement|reduction)"
# Every alternative starts with a number, so the regex engine skips straight to digits.
# The lookbehind after the first digit keeps the engine from retrying inside "MI300X" or "v0.12".
_EFFECT = re.compile(
    r"\d(?<![\w.,/]\d)(?>\d*(?:[.,]\d+)*)(?:"
    r"(?P<pct>\s*%?\s*(?:[-–—~]|to)\s*" + _NUM + r"\s*%|\s*%)"
    r"|(?P<arrow>\s*" + _UNIT + r"?\s*(?:→|->|=>|⇒|⟶)\s*~?" + _NUM + r"\s*" + _UNIT + r"?)"
    r"|(?P<fromto>\s*" + _UNIT + r"\s+(?:down\s+|up\s+)?to\s+~?" + _NUM + r"\s*" + _UNIT + r"(?![A-Za-z]))"
    r"|(?P<lines>\+?\s*(?:lines|LOC|loc)\b)"
    r"|(?P<times>\s*[x×X](?![\w])(?P<cmp>\s+" + _COMPARATIVE + r")?"
    r"|\s+times\s+(?P<cmp2>" + _COMPARATIVE + r")))"
)
_REMOVAL_BEFORE = re.compile(
    r"(?:remov|delet|drop|cut|sav|reduc|shrink|elimin)\w*\s+(?:by\s+)?(?:~|≈|about\s+|around\s+|over\s+|nearly\s+|"
    r"approximately\s+|roughly\s+|some\s+)?$|(?<![\w-])[-−–]~?$",
    re.I,
)
# matched against lower-cased text, without IGNORECASE, so the engine can skip to candidate letters
_VOCAB = re.compile(
    r"faster|slower|speed[- ]?ups?|throughput|latenc|improv|reduc|higher|lower|fewer|less|sav(?:e|es|ing)\b|"
    r"decreas|increas|boost|gain|overhead|memory|ttft|tpot|itl\b|e2e|end-to-end|qps|tok/s|tokens/s|bandwidth|"
    r"utili[sz]ation|perf|efficien|smaller|cheaper|accelerat|uplift|up to|time"
)
_SENTENCE_END = re.compile(r"[.!?。；;](?<!i\.e\.)(?<!e\.g\.)(?<!vs\.)(?<!etc\.)(?<!approx\.)(?<!resp\.)\s+")


def _code_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        start = text.find("```", pos)
        if start == -1:
            return spans
        end = text.find("```", start + 3)
        end = len(text) if end == -1 else end + 3
        spans.append((start, end))
        pos = end


def _fragment(line: str, start: int, end: int) -> str:
    """The sentence of ``line`` around [start, end), trimmed to HIGHLIGHT_MAX_CHARS."""
    lo, hi = 0, len(line)
    if len(line) > 60:
        for m in _SENTENCE_END.finditer(line):
            if m.end() <= start:
                lo = m.end()
            elif m.start() >= end:
                hi = m.start()
                break
    piece = line[lo:hi]
    s, e = start - lo, end - lo
    if len(piece) > HIGHLIGHT_MAX_CHARS:
        width = HIGHLIGHT_MAX_CHARS - 2
        left = max(0, min(s - 40, len(piece) - width))
        right = min(len(piece), left + width)
        if left:
            sp = piece.find(" ", left, s)
            left = sp + 1 if sp != -1 else left
        if right < len(piece):
            sp = piece.rfind(" ", e, right)
            right = sp if sp != -1 else right
        piece = ("…" if left else "") + piece[left:right].strip() + ("…" if right < len(piece) else "")
    b = _BULLET.match(piece)
    if b:
        piece = piece[b.end() :]
    return plain(piece.lstrip(" >")).strip(" |:")


def highlights(title: str, cleaned_body: str, limit: int = MAX_HIGHLIGHTS) -> list[str]:
    """Measured effects stated by the author ("719× faster", "16–24% higher decode throughput").

    A percentage or a bare multiplier only counts next to a word of effect (faster, throughput,
    latency, reduce, up to…), so "8x H100" or "GSM8K 84.5%" are not highlights; arrows with units
    ("1289μs → 1.8μs"), "from 12 ms to 9 ms" and removed line counts ("−1400 lines") always are.
    Code blocks and table rows are skipped.
    """
    found: list[str] = []
    seen: set[str] = set()
    for text in (title, cleaned_body):
        if not text:
            continue
        spans = _code_spans(text) if "```" in text else []
        for m in _EFFECT.finditer(text):
            start, end = m.start(), m.end()
            prev = text[start - 1] if start else " "
            if prev.isalnum() or prev in "._/":
                continue
            if spans and any(a <= start < b for a, b in spans):
                continue
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", end)
            line = text[line_start : line_end if line_end != -1 else len(text)]
            if "|" in line and is_table_row(line):  # a table's cells are read by ``table_effects``
                continue
            s, e = start - line_start, end - line_start
            kind = m.lastgroup
            if kind == "lines":
                if not _REMOVAL_BEFORE.search(line[max(0, s - 40) : s]):
                    continue
                while s and line[s - 1] in "-−–~≈":
                    s -= 1
            elif kind == "times" and (m.group("cmp") or m.group("cmp2")):
                pass
            elif kind in ("pct", "times") and not _VOCAB.search(line[max(0, s - 80) : e + 80].lower()):
                continue
            frag = _fragment(line, s, e)
            key = frag.lower()
            if not frag or key in seen:
                continue
            seen.add(key)
            found.append(frag)
            if len(found) >= limit:
                return found
    if cleaned_body and "|" in cleaned_body:
        for sentence in table_effects(cleaned_body):
            if len(found) < limit and sentence.lower() not in seen:
                found.append(sentence)
    return found


def is_table_row(line: str) -> bool:
    """A markdown table row or rule: cells between pipes ("a | b | c", "| a | b |", "---|---")."""
    outside = re.sub(r"`[^`]*`", "", line)
    if outside.count("|") >= 2:
        return True
    return bool(_TABLE_RULE.fullmatch(line))


_TABLE_RULE = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*")
# a column header naming a metric and its unit: "Throughput (tok/s)", "TTFT (ms)", "Peak memory [GB]"
_METRIC_HEADER = re.compile(
    r"\s*(?P<metric>[A-Za-z][\w .+/-]{0,40}?)\s*[(\[](?P<unit>[^()\[\]\d]{1,10})[)\]]\s*"
)
_CHANGE_CELL = re.compile(r"\s*~?(?P<a>\d+(?:[.,]\d+)*)\s*(?:→|->|=>)\s*~?(?P<b>\d+(?:[.,]\d+)*)\s*")


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [c.strip() for c in inner.split("|")]


def table_effects(text: str) -> list[str]:
    """Measured effects read from markdown tables, as sentences — only where the column header
    names the metric and its unit ("Throughput (tok/s)"), the cell holds a change ("2475 → 2904")
    and the row's first cell names the setup ("DFlash"): "Throughput 2475 → 2904 tok/s with
    DFlash". One per table (its first such cell); a row without all three is never quoted."""
    out: list[str] = []
    lines = text.split("\n")
    for i in range(len(lines) - 2):
        if not (is_table_row(lines[i]) and _TABLE_RULE.fullmatch(lines[i + 1])):
            continue
        header = _cells(lines[i])
        metrics = {j: m for j, cell in enumerate(header) if (m := _METRIC_HEADER.fullmatch(cell)) and j > 0}
        for row in lines[i + 2 :]:
            if not is_table_row(row) or _TABLE_RULE.fullmatch(row):
                break
            cells = _cells(row)
            setup = plain(cells[0]) if cells else ""
            if not any(ch.isalpha() for ch in setup):
                continue
            hit = next(
                (
                    (m, change)
                    for j, m in metrics.items()
                    if j < len(cells) and (change := _CHANGE_CELL.fullmatch(cells[j]))
                ),
                None,
            )
            if hit is not None:
                m, change = hit
                unit = m.group("unit").strip()
                out.append(
                    f"{m.group('metric').strip()} {change.group('a')} → {change.group('b')} {unit} with {setup}"
                )
                break
    return out


def search_text(body: str) -> str:
    """What full-text search indexes: the cleaned description without its section headings
    (template headings such as "Purpose" or "Test Plan" would otherwise match every PR)."""
    return "\n".join(line for line in clean_body(body).splitlines() if not line.lstrip().startswith("#"))
