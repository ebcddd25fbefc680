"""Flag evidence and score reasons as a reader sees them, in English or Chinese.

The classifier stores evidence as short English phrases of a fixed shape (file paths,
``label: deprecation``, ``1,436 lines changed (+8 −1,428)``, ``xgrammar 0.1.29 → 0.2.0``,
``#42894``), so a cache stays readable without prdigest. This module reads those shapes back
and writes them for the reader: translated, and without repeating what the reader already sees
next to them — a quote of the PR's own title says nothing the title does not, so it becomes
what it shows ("removal named in the title").
"""

from __future__ import annotations

import re
from collections.abc import Callable

_MORE = re.compile(r"^\+(\d+) more$")
_TESTS = re.compile(r"^([\d,]+) source lines changed in (\d+) files?, no test file changed$")
_LINES = re.compile(
    r"^([\d,]+) lines changed \(\+([\d,]+) −([\d,]+)\)(?:, not counting ([\d,]+) lines in generated or data files)?$"
)
_FILES = re.compile(r"^([\d,]+) files changed$")
_QUOTE = re.compile(r"^(label|tag|title|body): (.*)$", re.S)
_REF = re.compile(r"^(?:[\w.-]+/[\w.-]+)?#\d+$")
_REF_IN = re.compile(r"(?:[\w.-]+/[\w.-]+)?#\d+")
_PACKAGE = re.compile(r"→| (?:added|removed)$")
_DEP_CHANGE = re.compile(r"^(\S+) (added|removed|refreshed)$")

_SEP = {"en": "; ", "zh": "；"}

# what a quote of the title shows, by its first word
_TITLE_GIST: tuple[tuple[str, str, str], ...] = (
    (r"^(?:remov|drop|delet|rip)", "removal named in the title", "标题写明移除"),
    (r"^renam", "rename named in the title", "标题写明重命名"),
    (r"^deprecat", "deprecation named in the title", "标题写明弃用"),
    (r"^no\s+longer", "dropped support named in the title", "标题写明不再支持"),
    (r"^(?:end|ends|ended)\s", "end of support named in the title", "标题写明终止支持"),
    (r"^backwards?[ -]incompatible", "incompatibility named in the title", "标题写明不兼容"),
    (r"^breaking|^BREAKING", "marked breaking in the title", "标题标明 breaking"),
    (r"^[a-z]+(?:\([^)]*\))?!:", "marked breaking with “!” in the title", "标题以 “!” 标明 breaking"),
    (r"^--|^`--", "a CLI flag removed or renamed in the title", "标题写明移除或重命名命令行参数"),
)


_CODE_SPAN = re.compile(r"`[^`\n]+`")  # as both chat renderers pair backticks: left to right


def paired_code_spans(quote: str) -> str:
    """A quote whose every backtick has its pair.

    A quote cut short (``shorten``, or the classifier's own cut) can end inside a code span:
    ``"…implement `__init__(self…"``. Its lone backtick would pair with the next backtick of the
    sentence around it — our own ``(`risks breaking 2026-W19`)`` — and turn the text between into
    code. The last lone backtick is closed where the quoted text ends (before its ellipsis) when
    that pairs every backtick; otherwise lone backticks are dropped until none is left."""
    if "`" not in quote:
        return quote
    body = quote.rstrip("…")
    tail = quote[len(body) :]
    lone = _lone_backticks(body)
    if not lone:
        return quote
    if body[lone[-1] + 1 :].strip():
        closed = _without(body, lone[:-1]).rstrip() + "`"
        if not _lone_backticks(closed):
            return closed + tail
    while lone:
        body = _without(body, lone)
        lone = _lone_backticks(body)
    return body + tail


def _lone_backticks(text: str) -> list[int]:
    inside = {i for m in _CODE_SPAN.finditer(text) for i in range(*m.span())}
    return [i for i, ch in enumerate(text) if ch == "`" and i not in inside]


def _without(text: str, positions: list[int]) -> str:
    drop = set(positions)
    return "".join(ch for i, ch in enumerate(text) if i not in drop)


def _unquote(text: str) -> str:
    t = text.strip()
    if len(t) >= 2 and t[0] == '"' and t[-1] == '"':
        t = t[1:-1]
    return t.rstrip("…").strip()


def _words(text: str) -> list[str]:
    """Lower-case words with a plural or third-person "s" folded ("Removes" = "remove")."""
    out = []
    for w in re.findall(r"[\w.-]+", text.lower()):
        out.append(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def _in_title(quote: str, title: str) -> bool:
    """Whether a quote says nothing the title does not: all its words are the title's words."""
    words = _words(_unquote(quote))
    return bool(words) and set(words) <= set(_words(title))


def _title_gist(quote: str, lang: str) -> str:
    q = _unquote(quote)
    for pattern, en, zh in _TITLE_GIST:
        if re.match(pattern, q, re.I):
            return zh if lang == "zh" else en
    return "标题措辞" if lang == "zh" else "wording of the title"


def evidence_item(kind: str, item: str, lang: str, title: str = "", quote_limit: int = 0) -> str | None:
    """One piece of evidence for the reader, or None when it only repeats the PR's title."""
    text = item.strip()
    zh = lang == "zh"
    m = _MORE.match(text)
    if m:
        return f"另有 {m.group(1)} 个文件" if zh else f"+{m.group(1)} more files"
    m = _TESTS.match(text)
    if m:
        n_files = int(m.group(2))
        if zh:
            return f"{n_files} 个文件中改动 {m.group(1)} 行源码，未改动测试"
        return text
    m = _LINES.match(text)
    if m:
        if zh:
            out = f"改动 {m.group(1)} 行（+{m.group(2)} −{m.group(3)}）"
            return out + (f"，不含生成或数据文件中的 {m.group(4)} 行" if m.group(4) else "")
        return text
    m = _FILES.match(text)
    if m:
        return f"改动 {m.group(1)} 个文件" if zh else text
    if kind == "revert":
        return _revert_item(text, lang, title)
    if kind == "dependency":
        m = _DEP_CHANGE.match(text)
        if m and zh:
            name, what = m.group(1), m.group(2)
            return {"added": f"新增 {name}", "removed": f"移除 {name}", "refreshed": f"{name} 已刷新"}[what]
    m = _QUOTE.match(text)
    if m:
        where, what = m.group(1), m.group(2)
        if where == "label":
            return f"标签 {what}" if zh else f"label {what}"
        if where == "tag":
            return f"标题标签 {what}" if zh else f"title tag {what}"
        if where == "title":
            return _title_gist(what, lang)
        if title and _in_title(what, title):
            return None
        said = _unquote(what) + ("…" if what.rstrip('"').endswith("…") else "")
        if quote_limit and len(said) > quote_limit:
            from classify.text import shorten  # its patterns are compiled at import: only when needed

            said = shorten(said, quote_limit)
        said = paired_code_spans(said)
        return f"描述：“{said}”" if zh else f'description: "{said}"'
    return text  # a file path or a package version: the same in every language


def _revert_item(text: str, lang: str, title: str) -> str | None:
    zh = lang == "zh"
    if _REF.match(text):
        return f"撤销 {text}" if zh else f"reverts {text}"
    if text.startswith("commit "):
        sha = text.removeprefix("commit ")
        return f"撤销提交 {sha}" if zh else f"reverts commit {sha}"
    refs = _REF_IN.findall(text)  # a cache classified before revert evidence named the PR
    if refs:
        return f"撤销 {refs[-1]}" if zh else f"reverts {refs[-1]}"
    if title and _in_title(text, title):
        return None
    return f"撤销“{paired_code_spans(_unquote(text))}”" if zh else f"reverts {paired_code_spans(text)}"


_DECLARATION = re.compile(r'^body: "(?:breaking[ _-]changes?|backwards?[ -]incompatible)"$', re.I)


def _breaking_rank(item: str) -> int:
    """What the description says breaks comes first ("`TREE_ATTN` is no longer accepted"), then
    tags and labels, then a bare "breaking change" declaration, then a reading of the title."""
    if item.startswith("body: "):
        return 2 if _DECLARATION.match(item) else 0
    if item.startswith(("tag: ", "label: ")):
        return 1
    return 3 if item.startswith("title: ") else 1


def evidence_items(
    kind: str, evidence: list[str], lang: str, title: str = "", quote_limit: int = 0
) -> list[str]:
    """The evidence worth showing, translated: package versions over manifest paths, a reverted
    PR's number over its subject, nothing that only repeats the title."""
    items = list(evidence)
    if kind == "dependency" and any(_PACKAGE.search(e) for e in items):
        items = [e for e in items if _PACKAGE.search(e)]
    if kind == "revert" and any(_REF.match(e) or e.startswith("commit ") for e in items):
        items = [e for e in items if _REF.match(e) or e.startswith("commit ")]
    if kind == "breaking":
        items = sorted(items, key=_breaking_rank)
    items = _without_inner_quotes(items)
    out: list[str] = []
    for item in items:
        shown = evidence_item(kind, item, lang, title, quote_limit)
        if shown and shown not in out:
            out.append(shown)
    return out


def _without_inner_quotes(items: list[str]) -> list[str]:
    """The items without a description quote that another quote of the same description already
    holds: the classifier may quote a sentence and then the phrase in it that matched
    ("`TREE_ATTN` is no longer accepted in `--speculative-config` …" and "no longer accepted in
    `--speculative-config`"); the reader needs the sentence once."""
    quotes = [
        (i, _unquote(m.group(2)).lower()) for i, e in enumerate(items) if (m := _QUOTE.match(e.strip()))
    ]
    quotes = [(i, q) for i, q in quotes if items[i].lstrip().startswith("body:") and q]
    inner = {
        i for i, q in quotes if any(j != i and q in other and (q != other or j < i) for j, other in quotes)
    }
    return [e for i, e in enumerate(items) if i not in inner]


def evidence_text(
    kind: str, evidence: list[str], lang: str, title: str = "", limit: int | None = None
) -> str:
    """The evidence worth showing, joined into one phrase (empty when nothing is left)."""
    items = evidence_items(kind, evidence, lang, title)
    return _SEP.get(lang, "; ").join(items[:limit] if limit else items)


# -- score reasons ---------------------------------------------------------------------------------

_REASONS_ZH: tuple[tuple[str, str], ...] = (
    (r"^core path \((\d+) files?\)$", "核心路径（{0} 个文件）"),
    (r"^core path$", "核心路径"),
    (r"^no tests for source changes$", "源码改动未附测试"),
    (r"^breaking change$", "破坏性变更"),
    (r"^dependency change$", "依赖变更"),
    (r"^large change$", "大规模变更"),
    (r"^revert$", "回滚"),
    (r"^size: ≥ ([\d,]+) lines changed$", "规模：改动 ≥ {0} 行"),
    (r"^measured effect stated$", "给出实测效果"),
    (r"^touches (\d+) modules$", "涉及 {0} 个模块"),
    (r"^never key: docs-only$", "不作为关键变更：仅文档"),
    (r"^never key: typo$", "不作为关键变更：错别字、语法或文档字符串修正"),
    (r"^never key: own-version$", "不作为关键变更：本仓库版本号更新"),
    (r"^never key: lockfile$", "不作为关键变更：锁文件刷新"),
    (r"^never key: translation$", "不作为关键变更：翻译"),
    (r"^never key: bot$", "不作为关键变更：机器人提交"),
)


def score_reason(
    reason: str, lang: str, kind_label: Callable[[str], str], module_label: Callable[[str], str]
) -> str:
    """A score reason for the reader; reasons this module does not know are shown as written."""
    m = re.match(r"^(kind|module|label): (.+)$", reason)
    if m:
        what, value = m.group(1), m.group(2)
        if what == "kind":
            return f"类型：{kind_label(value)}" if lang == "zh" else f"kind: {kind_label(value)}"
        if what == "module":
            return f"模块：{module_label(value)}" if lang == "zh" else f"module: {module_label(value)}"
        return f"标签：{value}" if lang == "zh" else reason
    if lang != "zh":
        return reason
    for pattern, template in _REASONS_ZH:
        m = re.match(pattern, reason)
        if m:
            return template.format(*m.groups())
    return reason
