"""The digest's chart: a PNG of the period's PRs per module against the four-week average, with
the risk-flag counts beside it, drawn by matplotlib.

It is drawn from the digest Reply's ``data`` (the same numbers the JSON output and the text
show), so the chart cannot disagree with the digest. matplotlib is imported here only, and this
module only when a chart is asked for (``prdigest digest … --chart FILE.png``): the other commands
start without it. Drawing is headless (the Agg canvas, no pyplot, no global figure state).

Chinese labels need a CJK font, and a bare machine often has only DejaVu: the Noto Sans SC font
of the ``pylopdf-fonts-zh-cn`` package (SIL Open Font License 1.1) is registered with matplotlib's
font manager the first time a chart is drawn, and listed after DejaVu Sans (English) or before it
(Chinese), so every glyph finds a face and nothing renders as a tofu box.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from commands.locale import flag_label, t
from commands.model import Attachment, Image, Reply
from commands.report.trends import CHART_MODULES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CJK_FONT_PACKAGE = "pylopdf_fonts_zh_cn"
CJK_FONT_FILE = "NotoSansSC-Regular.otf"
LATIN_FAMILY = "DejaVu Sans"  # bundled with matplotlib itself
FLAG_KINDS = ("core-path", "missing-tests", "breaking", "dependency", "large", "revert")

NOW_COLOR = "#1f77b4"
AVG_COLOR = "#c7c7c7"
AVG_TEXT_COLOR = "#555555"
RISK_COLOR = "#d62728"
# Chat clients show an image about 600 px wide in the message (Slack's and Discord's previews):
# the chart is laid out 8 inches wide, so a 10-point label is 600 / (8 × 72) × 10 ≈ 10.4 px there.
# The dots per inch only add sharpness for whoever opens the image full size.
WIDTH_IN = 8.0
DPI = 150
PREVIEW_PX = 600
FONT_PT = 10.0  # the smallest text in the chart
TITLE_PT = 12.0
EDGE_PAD_PT = 8  # points of empty margin between the figure's edge and any text
ROW_IN = 0.42  # inches per module row: two bars and their counts


def cjk_font_path() -> Path:
    """Where the Noto Sans SC font file is (inside its installed package)."""
    return Path(str(resources.files(CJK_FONT_PACKAGE).joinpath(CJK_FONT_FILE)))


@lru_cache(maxsize=1)
def cjk_family() -> str:
    """Register the CJK font with matplotlib (once per process) and return its family name."""
    from matplotlib import font_manager

    path = cjk_font_path()
    font_manager.fontManager.addfont(str(path))
    return font_manager.FontProperties(fname=str(path)).get_name()


def families(lang: str) -> list[str]:
    """The font families in fallback order: matplotlib takes each glyph from the first that has it."""
    cjk = cjk_family()
    return [cjk, LATIN_FAMILY] if lang == "zh" else [LATIN_FAMILY, cjk]


def _avg_label(data: Mapping[str, Any], lang: str) -> str | None:
    """What the grey bars are ("4-week average"), or None when the period was not compared."""
    comparison = data.get("comparison") or {"windows": 4, "weekly": True}
    n = comparison.get("windows") or 0
    if not n:
        return None
    return t(lang, "chart.avg_weeks" if comparison.get("weekly") else "chart.avg_periods", n=n)


def module_rows(data: Mapping[str, Any], lang: str) -> tuple[list[str], list[int], list[float]]:
    """(names, this period's counts, averages): the digest's busiest modules in its order, and
    one row for the PRs that touch none of them — 42 rows of bars cannot be read in a chat
    preview, 13 can. That row counts PRs, this period's and the comparison windows' alike (the
    digest's ``other_modules``: a sum over the other modules would count a PR once per module)."""
    modules = list(data.get("modules") or [])
    shown = modules[:CHART_MODULES]
    names = [str(m.get("label") or m["module"]) for m in shown]
    now = [int(m["count"]) for m in shown]
    avg = [float(m["avg_4w"] or 0) for m in shown]
    rest = data.get("other_modules")
    if rest and (rest["count"] or rest["avg_4w"]):
        names.append(t(lang, "chart.other", n=rest["modules"]))
        now.append(int(rest["count"]))
        avg.append(float(rest["avg_4w"] or 0))
    return names, now, avg


def _count(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0") if value else "0"


def draw(data: Mapping[str, Any], lang: str) -> Figure:
    """The chart as a matplotlib Figure (not yet saved), so tests can read back what was plotted.

    Left: one pair of horizontal bars per module row (``module_rows``: this period's PRs and the
    average of the periods before, as ``data["comparison"]`` says how many), each with its value.
    Right, only as tall as its bars need: the count of PRs carrying each risk flag.
    """
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    counts: Mapping[str, int] = data.get("counts") or {}
    period = (data.get("period") or {}).get("label", "")
    names, now, avg = module_rows(data, lang)
    kinds = [k for k in FLAG_KINDS if k in counts]
    rows = max(len(names), 1)
    with rc_context({"font.family": families(lang), "axes.unicode_minus": False, "font.size": FONT_PT}):
        # a clear margin round the longest label (the layout's default is 3 pt, ~4 px: a label
        # such as 可观测性（指标、日志、追踪） then seems to touch the edge, or to be cut by it)
        pad = EDGE_PAD_PT / 72  # inches
        layout = ConstrainedLayoutEngine(w_pad=pad, h_pad=pad)
        fig = Figure(figsize=(WIDTH_IN, max(3.6, ROW_IN * rows + 1.4)), dpi=DPI, layout=layout)
        FigureCanvasAgg(fig)
        grid = fig.add_gridspec(
            2, 2, width_ratios=(2.6, 1), height_ratios=(max(len(kinds), 1), max(rows - len(kinds), 1))
        )
        left = fig.add_subplot(grid[:, 0])
        right = fig.add_subplot(grid[0, 1])  # as tall as its bars need, not as the modules'
        fig.suptitle(
            t(lang, "chart.title", repo=data.get("repo", ""), period=period, merged=counts.get("merged", 0)),
            fontsize=TITLE_PT,
        )
        ys = list(range(len(names)))
        height = 0.4
        handles = []
        avg_label = _avg_label(data, lang)
        if avg_label is not None:  # nothing before the period in the cache: no average to show
            grey = left.barh([y + height / 2 for y in ys], avg, height, color=AVG_COLOR, label=avg_label)
            labels = [_count(v) for v in avg]
            left.bar_label(grey, labels=labels, padding=2, fontsize=FONT_PT, color=AVG_TEXT_COLOR)
            handles.append(grey)
        blue = left.barh(
            [y - height / 2 for y in ys], now, height, color=NOW_COLOR, label=t(lang, "chart.now")
        )
        left.bar_label(blue, padding=2, fontsize=FONT_PT)
        handles.insert(0, blue)
        left.set_yticks(ys, names, fontsize=FONT_PT)
        left.set_ylim(rows - 0.5, -0.5)  # the digest's order, busiest module on top, no empty rows
        left.set_title(t(lang, "chart.modules"), fontsize=FONT_PT + 1)
        left.grid(axis="x", alpha=0.3)

        values = [counts[k] for k in kinds]
        risk = right.barh(
            list(range(len(kinds))), values, 0.6, color=RISK_COLOR, label=t(lang, "chart.risks")
        )
        right.bar_label(risk, padding=2, fontsize=FONT_PT)
        right.set_yticks(list(range(len(kinds))), [flag_label(lang, k) for k in kinds], fontsize=FONT_PT)
        right.set_ylim(max(len(kinds), 1) - 0.5, -0.5)
        right.set_title(t(lang, "chart.risks"), fontsize=FONT_PT + 1)
        right.grid(axis="x", alpha=0.3)
        fig.legend(
            handles=handles, loc="outside lower center", ncols=len(handles), fontsize=FONT_PT, frameon=False
        )
        for ax, shown in ((left, [*now, *avg]), (right, values)):
            # room for the value at the end of the longest bar (margins alone lose to tick rounding)
            ax.set_xlim(0, max([*shown, 1]) * 1.3)
            ax.tick_params(axis="x", labelsize=FONT_PT)
        fig.canvas.draw()  # lay out and measure every label now, in the chart's own fonts
    return fig


def write_png(data: Mapping[str, Any], lang: str, path: Path) -> None:
    """Draw the chart and save it as a PNG at ``path``."""
    from matplotlib import rc_context

    fig = draw(data, lang)
    with rc_context({"font.family": families(lang)}):
        fig.savefig(path, format="png", dpi=DPI)


CHART_NAME = "chart.png"


def png_bytes(data: Mapping[str, Any], lang: str) -> bytes:
    """The chart as PNG bytes (for a posted digest: ``with_chart``)."""
    import io

    from matplotlib import rc_context

    fig = draw(data, lang)
    out = io.BytesIO()
    with rc_context({"font.family": families(lang)}):
        fig.savefig(out, format="png", dpi=DPI)
    return out.getvalue()


def with_chart(reply: Reply) -> Reply:
    """The digest with its chart: the PNG as the reply's file ``chart.png`` and an ``Image`` block
    at the end of the lead that shows it (Slack: an image block of the uploaded file; Discord: the
    lead embed's image). A reply without the digest's numbers (the quiet-week line, a notice) is
    returned as it is."""
    data = reply.data
    if not reply.ok or not data.get("modules") or not (data.get("counts") or {}).get("merged"):
        return reply
    period = (data.get("period") or {}).get("label", "")
    alt = t(reply.lang, "chart.alt", repo=data.get("repo", ""), period=period)
    png = Attachment(
        name=CHART_NAME, content_type="image/png", data=png_bytes(data, reply.lang), description=alt
    )
    return replace(reply, blocks=[*reply.blocks, Image(name=CHART_NAME, alt=alt)], files=[*reply.files, png])
