"""The digest's chart: a valid PNG whose bars are the digest's numbers, readable
in Chinese (the CJK font is used, no glyph is missing), and ``prdigest digest … --chart FILE.png``."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from matplotlib import font_manager, rc_context
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.text import Text
from PIL import Image

from bot.delivery.chart import CJK_FONT_FILE, DPI, PREVIEW_PX, cjk_font_path, draw, families, write_png
from commands.locale import t
from tests.bot.cli.test_cli import _MODULES_AFTER_HELP, assert_one_line_usage, cli
from tests.conftest import RunFn

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FLAG_KINDS = ["core-path", "missing-tests", "breaking", "dependency", "large", "revert"]


def bars(fig: Figure) -> dict[str, list[float]]:
    """What was plotted: each labelled bar series by its legend label, as the bars' lengths."""
    out: dict[str, list[float]] = {}
    for ax in fig.axes:
        for c in ax.containers:
            if isinstance(c, BarContainer):
                out[str(c.get_label())] = [rect.get_width() for rect in c.patches]
    return out


def missing_glyph_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bars_are_the_digests_counts(run: RunFn, lang: str) -> None:
    data = run("digest", "2026-W19", lang=lang).data
    assert len(data["modules"]) > 10 and data["counts"]["merged"] > 0  # a real week, not an empty one
    fig = draw(data, lang)
    plotted = bars(fig)
    top = data["modules"][:12]
    shown = {m["module"] for m in top}
    elsewhere = sum(1 for p in data["prs"] if p["modules"] and not shown & set(p["modules"]))
    assert 0 < elsewhere < data["counts"]["merged"]
    assert plotted[t(lang, "chart.now")] == [*(m["count"] for m in top), elsewhere]
    assert data["other_modules"] == {
        "modules": len(data["modules"]) - 12,
        "count": elsewhere,
        "avg_4w": data["other_modules"]["avg_4w"],
    }
    rest_avg = data["other_modules"]["avg_4w"]
    assert rest_avg > 0  # the four weeks before had PRs in none of these modules too
    assert plotted[t(lang, "chart.avg_weeks", n=4)] == pytest.approx([*(m["avg_4w"] for m in top), rest_avg])
    assert plotted[t(lang, "chart.risks")] == [data["counts"][k] for k in FLAG_KINDS]
    modules_axes = fig.axes[0]
    other = t(lang, "chart.other", n=len(data["modules"]) - 12)
    assert [x.get_text() for x in modules_axes.get_yticklabels()] == [*(m["label"] for m in top), other]
    assert "2026-W19" in fig.get_suptitle() and str(data["counts"]["merged"]) in fig.get_suptitle()


def test_known_numbers_are_drawn_as_given() -> None:
    data = {
        "repo": "o/r",
        "period": {"label": "2026-W01"},
        "counts": {"merged": 9, "core-path": 3, "breaking": 1},
        "modules": [
            {"module": "kernel", "label": "Kernels", "count": 5, "avg_4w": 2.5},
            {"module": "docs", "label": "Docs", "count": 4, "avg_4w": None},
        ],
    }
    plotted = bars(draw(data, "en"))
    assert plotted == {"4-week average": [2.5, 0.0], "this period": [5, 4], "Risk flags": [3, 1]}
    data["comparison"] = {"windows": 2, "weekly": False}
    assert "average of the 2 previous periods" in bars(draw(data, "en"))
    data["comparison"] = {"windows": 0, "weekly": True}  # not compared: no average bars at all
    assert bars(draw(data, "en")) == {"this period": [5, 4], "Risk flags": [3, 1]}


def test_the_chart_is_a_valid_png(run: RunFn, tmp_path: Path) -> None:
    data = run("digest", "2026-W19").data
    fig = draw(data, "en")
    width, height = fig.get_size_inches()
    path = tmp_path / "w19.png"
    write_png(data, "en", path)
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    with Image.open(path) as image:
        image.verify()  # the whole stream parses (chunks and CRCs)
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size == (round(width * DPI), round(height * DPI))
        assert image.size[0] >= 800 and image.size[1] >= 400


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_chart_reads_at_chat_preview_size(run: RunFn, lang: str) -> None:
    """A chat shows the image about 600 px wide: at most 13 module rows, a value on every bar,
    no text under 10 px there, and a risk panel no taller than its six bars need."""
    data = run("digest", "2026-W19", lang=lang).data
    assert len(data["modules"]) > 13
    fig = draw(data, lang)
    modules_axes, risk_axes = fig.axes[0], fig.axes[1]
    assert len(modules_axes.get_yticklabels()) == 13
    scale = PREVIEW_PX / (fig.get_figwidth() * fig.dpi)  # image pixels → preview pixels
    sizes = {x.get_text(): x.get_fontsize() * fig.dpi / 72 * scale for x in drawn_texts(fig)}
    assert min(sizes.values()) >= 10, sorted(sizes.items(), key=lambda kv: kv[1])[:3]
    # every bar carries its value: the counts and the averages, the "none of these" row's too
    grey, blue = [[x.get_text() for x in modules_axes.texts][i : i + 13] for i in (0, 13)]
    top = [*data["modules"][:12], data["other_modules"]]
    assert grey == [f"{m['avg_4w']:.1f}".removesuffix(".0") for m in top]
    assert blue == [str(m["count"]) for m in top] and int(blue[12]) > 0
    assert [x.get_text() for x in risk_axes.texts] == [str(data["counts"][k]) for k in FLAG_KINDS]
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    risk_height = risk_axes.get_window_extent(renderer).height
    assert risk_height < 0.55 * modules_axes.get_window_extent(renderer).height


def test_the_preview_check_can_fail(run: RunFn) -> None:
    """The same measure finds the old 1,100-px chart's 8- and 9-point labels too small."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(figsize=(11, 4), dpi=100)
    FigureCanvasAgg(fig)
    label = fig.text(0.1, 0.5, "Kernels & custom ops", fontsize=9)
    assert label.get_fontsize() * fig.dpi / 72 * PREVIEW_PX / (fig.get_figwidth() * fig.dpi) < 10


def test_a_chinese_chart_sets_its_labels_in_the_cjk_font_with_no_missing_glyph(run: RunFn) -> None:
    data = run("digest", "2026-W19", lang="zh").data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = draw(data, "zh")
        fig.savefig(io.BytesIO(), format="png")
    assert missing_glyph_warnings(caught) == []
    labels = [*fig.axes[0].get_yticklabels(), *fig.axes[1].get_yticklabels()]
    cjk = [x for x in labels if any("\u4e00" <= ch <= "\u9fff" for ch in x.get_text())]
    assert len(cjk) >= 10  # module and flag names are Chinese
    for label in cjk:
        assert Path(font_manager.findfont(label.get_fontproperties())).name == CJK_FONT_FILE
    assert "合并" in fig.get_suptitle()


def drawn_texts(fig: Figure) -> list[Text]:
    """The figure's text as drawn: titles, bar counts, legend entries, and the tick labels of the
    ticks inside each axis' view (matplotlib keeps a few beyond it, never drawn)."""
    texts: list[Text] = [t for t in [fig._suptitle, *fig.texts] if t is not None]
    for legend in fig.legends:
        texts += legend.get_texts()
    for ax in fig.axes:
        texts += [ax.title, *ax.texts]
        legend = ax.get_legend()
        if legend is not None:
            texts += legend.get_texts()
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            texts += [tick.label1 for tick in axis.get_major_ticks() if low <= tick.get_loc() <= high]
    return [t for t in texts if t.get_visible() and t.get_text()]


def texts_outside(fig: Figure, margin: float = 0.0) -> list[str]:
    """The drawn text whose extent, measured by the renderer of the last draw, is not wholly
    inside the figure, ``margin`` pixels from its edges."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    box = fig.bbox.padded(-margin)
    outside = []
    for text in drawn_texts(fig):
        e = text.get_window_extent(renderer)
        if e.x0 < box.x0 - 0.5 or e.x1 > box.x1 + 0.5 or e.y0 < box.y0 - 0.5 or e.y1 > box.y1 + 0.5:
            outside.append(f"{text.get_text()!r} at x {e.x0:.0f}..{e.x1:.0f} of {box.width:.0f}")
    return outside


LONGEST_ZH = "可观测性（指标、日志、追踪）"
MARGIN_PX = 10  # clear of the edge by more than the ~4 px constrained layout leaves by default


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_label_lies_inside_the_figure(run: RunFn, lang: str) -> None:
    """No label is cut at, or even touches, the figure's edge: the layout measures every label in
    the chart's own fonts (the longest module name, 可观测性（指标、日志、追踪）, in Chinese) and
    keeps a margin round them, also when saved."""
    data = run("digest", "2026-W19", lang=lang).data
    fig = draw(data, lang)
    drawn = [x.get_text() for x in drawn_texts(fig)]
    assert len(drawn) > 50
    assert texts_outside(fig, MARGIN_PX) == []
    with rc_context({"font.family": families(lang)}):
        fig.savefig(io.BytesIO(), format="png", dpi=DPI)  # saving lays the figure out again
    assert texts_outside(fig, MARGIN_PX) == []
    # a figure made of nothing but the longest label still has room for it
    alone = {
        **data,
        "modules": [{"module": "observability", "label": LONGEST_ZH * 2, "count": 3, "avg_4w": 1}],
    }
    assert texts_outside(draw(alone, lang), MARGIN_PX) == []


def test_the_edge_check_can_fail() -> None:
    """``texts_outside`` sees a tick label that sticks out of the figure (an axes placed by hand,
    with no layout to make room)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(figsize=(3, 2), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.05, 0.1, 0.9, 0.8))
    ax.set_xticks([])
    ax.set_yticks([0], ["cut at the left edge"])
    fig.canvas.draw()
    [outside] = texts_outside(fig)
    assert outside.startswith("'cut at the left edge' at x -")


def test_without_the_cjk_font_chinese_would_be_missing_glyphs() -> None:
    """The check above can fail: DejaVu alone has no CJK glyphs, and matplotlib says so."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure()
    FigureCanvasAgg(fig)
    fig.text(0.1, 0.5, "核心路径变更", family="DejaVu Sans")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.canvas.draw()
    assert missing_glyph_warnings(caught)


def test_the_cjk_font_is_the_packaged_noto_sans_sc() -> None:
    path = cjk_font_path()
    assert path.is_file() and path.name == CJK_FONT_FILE
    assert font_manager.FontProperties(fname=str(path)).get_name() == "Noto Sans SC"


def test_digest_chart_option_writes_the_png(demo_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "w19.png"
    result = cli("digest", "2026-W19", "--db", str(demo_db), "--lang", "zh", "--chart", str(out))
    assert result.returncode == 0, result.stderr
    assert "2026-W19" in result.stdout  # the digest is printed as before
    assert out.read_bytes()[:8] == PNG_SIGNATURE
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size[0] >= 800


def test_digest_chart_option_keeps_json_on_stdout(demo_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "w19.png"
    result = cli("digest", "2026-W19", "--db", str(demo_db), "--format", "json", "--chart", str(out))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["counts"]["merged"] > 0
    assert out.stat().st_size > 10_000


@pytest.mark.parametrize(
    ("name", "needle"),
    [("nowhere/w19.png", "no directory"), ("w19.jpg", "ending in .png")],
)
def test_a_chart_path_that_cannot_be_written_is_one_line(
    demo_db: Path, tmp_path: Path, name: str, needle: str
) -> None:
    result = cli("digest", "2026-W19", "--db", str(demo_db), "--chart", str(tmp_path / name))
    assert_one_line_usage(result, needle)
    assert result.stdout == ""  # refused before any work was done
    assert list(tmp_path.glob("*.png")) == [] and list(tmp_path.glob("*.jpg")) == []


def test_only_the_digest_has_a_chart() -> None:
    result = cli("risks", "core-path", "--chart", "x.png")
    assert result.returncode == 2 and "No such option '--chart'" in result.stderr


def test_a_digest_without_chart_does_not_import_matplotlib(demo_db: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", _MODULES_AFTER_HELP, "digest", "2026-W19", "--db", str(demo_db)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["code"] == 0, run.stderr
    assert "commands.digest" in out["modules"]  # the digest really ran
    loaded = {m.split(".")[0] for m in out["modules"]}
    # (numpy is not in the list: sqlite-utils imports it whenever it is installed)
    assert not loaded & {"matplotlib", "PIL"} and "bot.delivery.chart" not in out["modules"]
