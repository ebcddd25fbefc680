"""Measured effects in Chinese: "Gives 16–24% higher decode throughput on MI355X." → "MI355X 上解码吞吐提升 16–24%".

The classifier keeps the author's own sentence as a highlight (English in the repositories we
follow). A Chinese digest should not quote it in English, and no translation service is at
hand, so this module reads the few shapes measured effects come in — "N% higher METRIC",
"up to N% speedup", "N× faster THING", "METRIC drops from A to B", "A → B", "removes ~N lines"
— with their context ("on H100", "at batch size 32", "per call"), and writes them again in
Chinese. Names (hardware, models, identifiers) stay as written; ordinary English words must be
in the small vocabulary below, otherwise ``effect_zh`` returns None and the caller quotes the
author instead of guessing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

_N = r"\d+(?:[.,]\d+)*"
_PCT = rf"~?{_N}(?:\s*%?\s*[-–—~]\s*{_N})?\s*%"
_MULT = rf"~?{_N}(?:\s*[-–]\s*{_N})?\s*[x×X]"
_UNIT = r"(?:µs|μs|us|ns|ms|s|sec|seconds|min|minutes|GB|GiB|MB|MiB|KB|KiB|TB|tok/s|tokens/s|req/s|it/s|QPS|qps|%)"
_QTY = rf"~?{_N}\s*{_UNIT}?"

# English words of a metric or a thing, in Chinese. Longer phrases first (they are tried in order).
_WORDS: tuple[tuple[str, str], ...] = (
    ("output token throughput", "输出 token 吞吐"),
    ("output tokens/s", "输出 tokens/s"),
    ("output throughput", "输出吞吐"),
    ("decode throughput", "解码吞吐"),
    ("prefill throughput", "预填充吞吐"),
    ("end-to-end throughput", "端到端吞吐"),
    ("e2e throughput", "端到端吞吐"),
    ("request throughput", "请求吞吐"),
    ("token throughput", "token 吞吐"),
    ("throughput", "吞吐"),
    ("end-to-end latency", "端到端延迟"),
    ("e2e latency", "端到端延迟"),
    ("decode latency", "解码延迟"),
    ("latency", "延迟"),
    ("kernel time", "内核耗时"),
    ("layer time", "层耗时"),
    ("step time", "单步耗时"),
    ("time per step", "单步耗时"),
    ("time per call", "单次调用耗时"),
    ("startup time", "启动时间"),
    ("load time", "加载时间"),
    ("loading time", "加载时间"),
    ("compile time", "编译时间"),
    ("compilation time", "编译时间"),
    ("time", "耗时"),
    ("peak gpu memory", "峰值显存"),
    ("peak memory", "峰值内存"),
    ("gpu memory", "显存"),
    ("memory usage", "内存占用"),
    ("memory", "内存"),
    ("decode steps", "解码步"),
    ("decode step", "解码步"),
    ("decode", "解码"),
    ("prefill", "预填充"),
    ("response serialization", "响应序列化"),
    ("serialization", "序列化"),
    ("rebalancing stalls", "重平衡停顿"),
    ("stalls", "停顿"),
    ("image", "镜像"),
    ("the image", "镜像"),
    ("docker image", "Docker 镜像"),
    ("model loading", "模型加载"),
    ("weight loading", "权重加载"),
    ("layers", "层"),
    ("layer", "层"),
    ("sampler", "采样器"),
    ("calls", "次调用"),
    ("gemms", "GEMM"),
    ("gemm", "GEMM"),
    ("kernels", "内核"),
    ("kernel", "内核"),
    ("path", "路径"),
    ("fallback", "回退实现"),
    ("baseline", "基线"),
    ("fused", "融合"),
    ("embeddings", "embedding"),
    ("long sequences", "长序列"),
    ("short sequences", "短序列"),
    ("small batches", "小 batch"),
    ("large batches", "大 batch"),
    ("small models", "小模型"),
    ("large models", "大模型"),
)
_WORD_MAP = dict(_WORDS)
# words that carry no meaning of their own in a metric ("the", "a") and are dropped
_FILLER = frozenset({"the", "a", "an", "overall", "total", "average", "avg", "mean", "median"})

_UP = {"higher", "more", "better", "faster", "larger", "bigger", "greater"}
_DOWN = {"lower", "less", "fewer", "smaller", "shorter", "cheaper"}
_UP_VERBS = (
    r"improves|improve|improved|increases|increase|increased|rises|rise|rose|grows|grow|grew|goes up|go up|"
    r"went up|is up|are up"
)
_DOWN_VERBS = (
    r"drops|drop|dropped|falls|fall|fell|decreases|decrease|decreased|goes down|go down|went down|shrinks|"
    r"shrink|shrank|is down|are down|is reduced|are reduced"
)

_LEAD = re.compile(
    r"^(?:this\s+)?(?:gives|yields|brings|delivers|shows|achieves|provides|results in|leads to|we see|we get|"
    r"with this pr,?|overall,?|result:|results:|perf:|performance:)\s+",
    re.I,
)


def _is_name(word: str) -> bool:
    """A word that is a name or identifier here (kept as written): MI355X, H100, pick_config, gpt-oss-120b."""
    return bool(re.search(r"[A-Z0-9_./\-]", word[1:] if word[:1].isupper() else word)) or word[:1].isupper()


def _phrase(text: str) -> str | None:
    """An English noun phrase in Chinese, or None when it has an ordinary word we do not know."""
    words = text.strip().strip(",").split()
    out: list[str] = []
    i = 0
    while i < len(words):
        for size in (4, 3, 2, 1):
            chunk = " ".join(words[i : i + size]).lower()
            if chunk in _WORD_MAP:
                out.append(_WORD_MAP[chunk])
                i += size
                break
        else:
            w = words[i]
            if w.lower() in _FILLER:
                pass
            elif _is_name(w) or re.fullmatch(r"[\d.,]+(?:-\w+)?", w):
                out.append(w.replace("-dim", " 维"))
            else:
                return None
            i += 1
    return _join(out)


def _join(parts: list[str]) -> str:
    """Chinese pieces joined: a space only between two Latin/digit ends (MoE 层, H100 上)."""
    text = ""
    for p in parts:
        if text and (_latin(text[-1]) or _latin(p[0])) and p[0] not in "（，。" and text[-1] not in "（":
            text += " "
        text += p
    return text


def _latin(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch in "%×)_-./")


def _on(m: re.Match[str]) -> str | None:
    what = _phrase(m.group(1))
    return None if what is None else _join([what, "上"])


def _batch(m: re.Match[str]) -> str | None:
    kind = "并发" if "concurrency" in m.group(0).lower() else "batch size "
    return f"{kind}为 {m.group(1)} 时"


def _per(m: re.Match[str]) -> str | None:
    word = {"call": "每次调用", "step": "每步", "request": "每个请求", "token": "每个 token"}
    return word.get(m.group(1).lower(), "每次迭代")


def _scenario(m: re.Match[str]) -> str | None:
    what = _phrase(m.group(1))
    return None if what is None else _join([what, "场景下"])


def _aside(m: re.Match[str]) -> str | None:
    inner = m.group(1)
    if not re.search(r"\d", inner) or _phrase(re.sub(r"[→\-=>]+", " ", inner)) is None:
        return None
    return f"（{inner}）"


def _than(m: re.Match[str]) -> str | None:
    what = _phrase(m.group(1))
    return None if what is None else f"（相比 {what}）"


# Trailing context of an effect: (pattern, goes before the effect?, its Chinese). Tried in order
# until the context is used up; a piece none of them reads makes the whole effect unreadable.
_CONTEXT: tuple[tuple[re.Pattern[str], bool, Callable[[re.Match[str]], str | None]], ...] = (
    (
        re.compile(r"^(?:on|with)\s+(.+?)(?=\s+(?:at|for|with|per|on|in|under|than)\s|\s*\(|$)", re.I),
        True,
        _on,
    ),
    (re.compile(r"^at\s+(?:batch(?:\s+size)?|bs|concurrency)\s*=?\s*(\d+)", re.I), True, _batch),
    (re.compile(r"^(?:per|a)\s+(call|step|request|token|iteration)\b", re.I), False, _per),
    (re.compile(r"^(?:for|in|under)\s+(.+?)(?=\s+(?:at|on|per|than)\s|\s*\(|$)", re.I), True, _scenario),
    (re.compile(r"^\((.{1,60}?)\)"), False, _aside),
    (re.compile(r"^than\s+(?:the\s+)?(.+?)(?=\s+(?:at|on|for|per)\s|$)", re.I), False, _than),
)


def _context(text: str) -> tuple[str, str] | None:
    """Trailing context → (prefix, suffix) in Chinese: "on H100" → ("H100 上", ""), "per call" → ("", "每次调用")."""
    rest = text.strip().rstrip(".")
    prefix: list[str] = []
    suffix: list[str] = []
    while rest:
        for pattern, before, render in _CONTEXT:
            m = pattern.match(rest)
            if m is None:
                continue
            piece = render(m)
            if piece is None:
                return None
            (prefix if before else suffix).append(piece)
            rest = rest[m.end() :].strip()
            break
        else:
            return None
    return _join(prefix), _join(suffix)


def _qty(text: str) -> str:
    """A number as Chinese writes it in a report: "~1400" → "约 1400", "3.4x" → "3.4 倍"."""
    t = " ".join(text.split())
    approx = t.startswith("~")
    t = t.lstrip("~").strip()
    if re.search(r"[x×X]$", t):
        t = t[:-1].strip() + " 倍"
    t = re.sub(r"\s*[-—~]\s*(?=\d)", "–", t)  # 5-8% → 5–8%
    t = re.sub(r"(\d)\s*%\s*–", r"\1–", t)  # 16%–24% → 16–24%
    return ("约 " if approx else "") + t


def _sentence(
    metric: str | None, verb: str, value: str, prefix: str, suffix: str, up_to: bool = False
) -> str:
    if (
        verb == "提速" and metric and metric.endswith("耗时")
    ):  # "MoE layer time 3.4× faster": the layer is faster
        metric = metric[: -len("耗时")].rstrip()
    head = _join([p for p in (prefix, metric or "") if p])
    amount = ("最高" if up_to else "") + verb
    return _join([p for p in (head, amount, value, suffix) if p])


_LEADING_VALUE_VERBS = {
    "speedup": "加速",
    "speed-up": "加速",
    "faster": "提速",
    "slower": "变慢",
    "reduction": "降低",
    "fewer": "减少",
}


def _value_first(m: re.Match[str], up_to: bool) -> str | None:
    """ "16–24% higher decode throughput on MI355X", "3.4× faster MoE layers", "41% speedup"."""
    direction = m.group("dir").lower()
    if direction not in _UP | _DOWN and direction not in _LEADING_VALUE_VERBS and direction != "improvement":
        return None
    metric, ctx = _split_metric(m.group("rest") or "")
    if metric is None or ctx is None:
        return None
    verb = _LEADING_VALUE_VERBS.get(direction) or ("降低" if direction in _DOWN else "提升")
    return _sentence(metric, verb, _qty(m.group("v")), ctx[0], ctx[1], up_to and verb != "变慢")


# Shapes "METRIC … VALUE" / "VERB METRIC by VALUE": (regex, Chinese verb by the matched word, "up to" applies).
# Each regex has the groups v (the value) and rest (trailing context), and metric unless fixed.
_SHAPE_SOURCES: tuple[tuple[str, dict[str, str], str, bool], ...] = (
    (  # "319% end-to-end speedup on H100"
        rf"^(?P<v>{_PCT}|{_MULT})\s+(?:end-to-end|e2e|overall)\s+(?P<w>speedup|speed-up)(?P<rest>.*)$",
        {"": "加速"},
        "端到端",
        True,
    ),
    (  # "MoE layer time 3.4× faster"
        rf"^(?P<metric>.+?)\s+(?:is\s+|are\s+)?(?P<v>{_MULT}|{_PCT})\s+(?P<w>faster|higher|lower|smaller|slower)(?P<rest>.*)$",
        {"faster": "提速", "higher": "提升", "slower": "变慢", "": "降低"},
        "",
        True,
    ),
    (  # "decode throughput improves by 5-8%"
        rf"^(?P<metric>.+?)\s+(?P<w>{_UP_VERBS}|{_DOWN_VERBS})\s+by\s+(?P<v>{_QTY}(?:\s*[-–]\s*{_QTY})?)(?P<rest>.*)$",
        {"up": "提升", "": "降低"},
        "",
        True,
    ),
    (  # "Reduces peak GPU memory by 1.2 GiB"
        rf"^(?P<w>reduces|reduced|cuts|lowers|decreases|saves)\s+(?P<metric>.+?)\s+by\s+(?P<v>{_QTY}|{_MULT})(?P<rest>.*)$",
        {"": "减少"},
        "",
        True,
    ),
    (  # "improves decode throughput by 12%"
        rf"^(?P<w>improves|increases|boosts|raises|speeds up)\s+(?P<metric>.+?)\s+by\s+(?P<v>{_QTY}|{_MULT})(?P<rest>.*)$",
        {"": "提升"},
        "",
        True,
    ),
    (  # "Causes a 12% throughput regression on Llama 3"
        rf"^(?P<w>causes|caused|introduces|introduced)\s+an?\s+(?P<v>{_PCT})\s+(?P<metric>.+?)\s+regression(?P<rest>.*)$",
        {"": "下降"},
        "",
        False,
    ),
    (  # "The image is 2.3 GB smaller"
        rf"^(?P<metric>.+?)\s+(?:is|are)\s+(?P<v>{_QTY}|{_MULT})\s+(?P<w>smaller|larger|faster|slower|lower|higher)(?P<rest>.*)$",
        {
            "smaller": "减小",
            "larger": "增大",
            "faster": "提速",
            "slower": "变慢",
            "lower": "降低",
            "": "提升",
        },
        "",
        False,
    ),
)


@lru_cache(maxsize=1)
def _shapes() -> tuple[tuple[re.Pattern[str], dict[str, str], str, bool], ...]:
    """``_SHAPE_SOURCES`` compiled at the first Chinese reading, not at import: ``pr`` imports this
    module for every answer, and compiling them was ~3 ms of a one-shot command's start."""
    return tuple((re.compile(p, re.I), verbs, fixed, up_to) for p, verbs, fixed, up_to in _SHAPE_SOURCES)


def _shape(pattern: re.Pattern[str], verbs: dict[str, str], fixed: str, text: str, up_to: bool) -> str | None:
    """One of ``_shapes()`` applied to ``text``: None when it does not match or has unknown words."""
    m = pattern.match(text)
    if m is None:
        return None
    metric = _phrase(m.group("metric")) if "metric" in pattern.groupindex else fixed
    ctx = _context(m.group("rest"))
    if metric is None or ctx is None:
        return None
    word = m.group("w").lower()
    if "up" in verbs:
        word = "up" if re.fullmatch(_UP_VERBS, word, re.I) else ""
    verb = verbs.get(word, verbs[""])
    return _sentence(metric, verb, _qty(m.group("v")), ctx[0], ctx[1], up_to)


def _clause(text: str) -> str | None:
    """One clause of a measured effect in Chinese, or None when its shape is unknown."""
    t = _LEAD.sub("", text.strip().rstrip(".").strip())
    up_to = False
    m = re.match(r"^(?:up to|as much as|over|more than)\s+", t, re.I)
    if m:
        up_to = True
        t = t[m.end() :]
    m = re.match(rf"^(?P<v>{_PCT}|{_MULT})\s+(?P<dir>[\w-]+)(?:\s+(?P<rest>.*))?$", t, re.I)
    if m and (m.group("rest") or "").lower().split(" ", 1)[0] not in ("speedup", "speed-up"):
        done = _value_first(m, up_to)
        if done is not None:
            return done
    for pattern, verbs, fixed, applies in _shapes():
        done = _shape(pattern, verbs, fixed, t, up_to and applies)
        if done is not None:
            return done
    # "TTFT p50 drops from 191 ms to 168 ms", "pick_config drops from 1289μs to 1.8μs per call"
    m = re.match(
        rf"^(?P<metric>.+?)\s+(?:{_UP_VERBS}|{_DOWN_VERBS}|goes|went|changes)\s+from\s+(?P<a>{_QTY})\s+"
        rf"(?:down\s+|up\s+)?to\s+(?P<b>{_QTY})(?P<rest>.*)$",
        t,
        re.I,
    )
    if m:
        return _from_to(m.group("metric"), m.group("a"), m.group("b"), m.group("rest"))
    # "Kernel time 1239μs → 507μs on H100", "output tokens/s 143.2 → 301.7", "1289μs → 1.8μs per call"
    m = re.match(
        rf"^(?P<metric>.*?)[:\s]?\s*(?P<a>{_QTY})\s*(?:→|->|=>|⇒)\s*(?P<b>{_QTY})(?P<rest>.*)$", t, re.I
    )
    if m:
        return _from_to(m.group("metric"), m.group("a"), m.group("b"), m.group("rest"))
    # "Removes ~1400 lines", "−1400 lines"
    m = re.match(
        rf"^(?:removes|removed|deletes|deleted|drops|cuts|saves|[-−–])\s*(?P<n>~?{_N}\+?)\s*(?:lines|LOC)(?:\s+of\s+code)?$",
        t,
        re.I,
    )
    if m:
        n = m.group("n")
        return f"减少{'约' if n.startswith('~') else ''} {n.lstrip('~').rstrip('+')} 行代码"
    return None


def _split_metric(rest: str) -> tuple[str | None, tuple[str, str] | None]:
    """ "decode throughput on MI355X" → ("解码吞吐", ("MI355X 上", "")); the metric may be empty."""
    m = re.search(r"\s*(?:\b(?:on|at|for|per|with|in|under|than)\b|\().*$", rest, re.I)
    head, tail = (rest[: m.start()], rest[m.start() :]) if m else (rest, "")
    metric = _phrase(head) if head.strip() else ""
    return metric, _context(tail)


def _from_to(metric_text: str, a: str, b: str, rest: str) -> str | None:
    metric = (
        _phrase(re.sub(r"^(?:over\s+[\d,]+\s+calls\s*,?\s*)", "", metric_text, flags=re.I))
        if metric_text.strip()
        else ""
    )
    ctx = _context(rest)
    if metric is None or ctx is None:
        return None
    before, after = _number(a), _number(b)
    verb = "降至" if before is not None and after is not None and after < before else "增至"
    head = _join([p for p in (ctx[0], metric, ctx[1]) if p])
    return _join([p for p in (head, f"从 {_qty(a)} {verb} {_qty(b)}") if p])


def _number(text: str) -> float | None:
    m = re.search(_N, text)
    return float(m.group(0).replace(",", "")) if m else None


def _clauses(text: str) -> list[str]:
    """Split at ", " / "; " outside parentheses ("…per call, 719× faster" → two clauses)."""
    parts: list[str] = []
    depth = 0
    current = ""
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch in ",;" and depth == 0 and text[i + 1 : i + 2] == " " and not text[i - 1 : i].isdigit():
            parts.append(current)
            current = ""
            continue
        current += ch
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


@lru_cache(maxsize=4096)
def effect_zh(text: str) -> str | None:
    """A measured effect in Chinese, or None when its shape is not one this module knows."""
    if not text or "…" in text:
        return None
    out = []
    for clause in _clauses(text.strip()):
        # "Over 80,000 calls pick_config drops …": a leading sample size is context, not a metric
        clause = re.sub(r"^over\s+[\d,]+\s+calls\s+", "", clause, flags=re.I)
        zh = _clause(clause)
        if zh is None:
            return None
        out.append(zh)
    return "，".join(out) if out else None


def effect_text(text: str, lang: str) -> str:
    """A highlight as a digest shows it: the author's words in English; in Chinese our reading of
    them, or the author's words in quotation marks when their shape is unknown."""
    if lang != "zh":
        return text.rstrip(".")
    zh = effect_zh(text)
    return zh if zh is not None else f"“{text.rstrip('.')}”"
