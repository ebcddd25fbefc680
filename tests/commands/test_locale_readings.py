"""Measured effects, flag evidence and score reasons as the reader sees them, in both languages."""

from __future__ import annotations

import pytest

from commands.locale import zh_spacing
from commands.locale.effects import effect_text, effect_zh
from commands.locale.evidence import evidence_items, evidence_text, score_reason
from commands.locale.words import avg_text, change_words, count, join_list, pct_change, shown_avg, signed_pct


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        # the team report's own examples
        ("Gives 16–24% higher decode throughput on MI355X.", "MI355X 上解码吞吐提升 16–24%"),
        ("Decode throughput improves by 5-8%.", "解码吞吐提升 5–8%"),
        ("Up to 319% end-to-end speedup on H100.", "H100 上端到端最高加速 319%"),
        ("13.5% higher throughput on long sequences.", "长序列上吞吐提升 13.5%"),
        (
            "Over 80,000 calls pick_config drops from 1289μs to 1.8μs per call, 719× faster.",
            "pick_config 每次调用从 1289μs 降至 1.8μs，提速 719 倍",
        ),
        ("Removes ~1400 lines.", "减少约 1400 行代码"),
        # other shapes authors write
        ("TTFT p50 drops from 191 ms to 168 ms.", "TTFT p50 从 191 ms 降至 168 ms"),
        ("Kernel time 1239μs → 507μs on H100.", "H100 上内核耗时从 1239μs 降至 507μs"),
        ("output tokens/s 143.2 → 301.7.", "输出 tokens/s 从 143.2 增至 301.7"),
        ("3.1% higher output throughput at batch 256.", "batch size 为 256 时输出吞吐提升 3.1%"),
        ("MoE layer time 3.4× faster", "MoE 层提速 3.4 倍"),
        ("5.9× faster moe_align_block_size on L40S.", "L40S 上 moe_align_block_size 提速 5.9 倍"),
        (
            "7% higher output token throughput on A100 (8380 → 8966 tok/s).",
            "A100 上输出 token 吞吐提升 7%（8380 → 8966 tok/s）",
        ),
        ("Reduces peak GPU memory by 1.2 GiB.", "峰值显存减少 1.2 GiB"),
        ("The image is 2.3 GB smaller.", "镜像减小 2.3 GB"),
        ("Causes a 21% throughput regression on Llama 3", "Llama 3 上吞吐下降 21%"),
        ("Up to 41% higher output throughput for gpt-oss-120b.", "gpt-oss-120b 场景下输出吞吐最高提升 41%"),
        (
            "2.1× faster than the dequantize-then-GEMM fallback",
            "提速 2.1 倍（相比 dequantize-then-GEMM 回退实现）",
        ),
    ],
)
def test_measured_effects_read_as_chinese(english: str, chinese: str) -> None:
    assert effect_zh(english) == chinese


@pytest.mark.parametrize(
    "english",
    [
        "6–9% higher throughput on small models where the CPU overhead dominates.",  # words we do not know
        "Accuracy on GSM8K is 84.5%.",  # not an effect shape
        "…faster in most runs",  # a cut fragment
    ],
)
def test_unknown_shapes_are_quoted_not_guessed(english: str) -> None:
    assert effect_zh(english) is None
    assert effect_text(english, "zh") == f"“{english.rstrip('.')}”"
    assert effect_text(english, "en") == english.rstrip(".")


def test_evidence_in_english_and_chinese() -> None:
    title = "[Attention] Remove the Tree Attention backend"
    evidence = [
        "label: deprecation",
        'body: "breaking change"',
        'body: "Removes the Tree Attention backend"',  # the title again, in other words
        'body: "`TREE_ATTN` is no longer a valid backend"',
        'title: "Remove the Tree Attention backend"',
    ]
    assert evidence_items("breaking", evidence, "en", title) == [
        'description: "`TREE_ATTN` is no longer a valid backend"',
        "label deprecation",
        'description: "breaking change"',
        "removal named in the title",
    ]
    assert evidence_items("breaking", evidence, "zh", title) == [
        "描述：“`TREE_ATTN` is no longer a valid backend”",
        "标签 deprecation",
        "描述：“breaking change”",
        "标题写明移除",
    ]
    assert evidence_text("large", ["1,436 lines changed (+8 −1,428)", "56 files changed"], "zh") == (
        "改动 1,436 行（+8 −1,428）；改动 56 个文件"
    )
    assert evidence_text(
        "missing-tests", ["212 source lines changed in 4 files, no test file changed"], "zh"
    ) == ("4 个文件中改动 212 行源码，未改动测试")
    assert evidence_text("core-path", ["vllm/v1/core/sched/scheduler.py", "+3 more"], "zh") == (
        "vllm/v1/core/sched/scheduler.py；另有 3 个文件"
    )


def test_dependency_and_revert_evidence_name_what_matters() -> None:
    # caches classified before packages came first: the package, not the manifests
    old = ["requirements/common.txt", "xgrammar → 0.2.0"]
    assert evidence_items("dependency", old, "en") == ["xgrammar → 0.2.0"]
    assert evidence_items("dependency", ["requirements/common.txt"], "en") == ["requirements/common.txt"]
    # the reverted PR, never the reverted title again (also for caches with the old evidence)
    title = 'Revert "[ROCm] Support NVFP4 KV cache (#42894)"'
    assert evidence_items("revert", ["#42894"], "en", title) == ["reverts #42894"]
    assert evidence_items("revert", ["#42894"], "zh", title) == ["撤销 #42894"]
    legacy = ['"[ROCm] Support NVFP4 KV cache (#42894)"', "vllm-project/vllm#42894"]
    assert evidence_items("revert", legacy, "en", title) == ["reverts vllm-project/vllm#42894"]
    assert evidence_items("revert", ['"Add foo"'], "en", 'Revert "Add foo"') == []


def test_score_reasons_in_chinese() -> None:
    def kind(k: str) -> str:
        return {"perf": "性能优化"}.get(k, k)

    def module(m: str) -> str:
        return {"spec-decode": "推测解码"}.get(m, m)

    cases = {
        "core path (3 files)": "核心路径（3 个文件）",
        "kind: perf": "类型：性能优化",
        "size: ≥ 800 lines changed": "规模：改动 ≥ 800 行",
        "measured effect stated": "给出实测效果",
        "touches 3 modules": "涉及 3 个模块",
        "module: spec-decode": "模块：推测解码",
        "label: performance": "标签：performance",
        "a reason from a newer profile": "a reason from a newer profile",
    }
    for reason, chinese in cases.items():
        assert score_reason(reason, "zh", kind, module) == chinese
    assert score_reason("kind: perf", "en", lambda k: "Performance", module) == "kind: Performance"


def test_a_percentage_agrees_with_the_average_shown_beside_it() -> None:
    """17 PRs against an average of 15.75 shown as 15.8 is +8% (the unrounded 15.75 gave +8% too;
    the old whole-number 16 beside it +10%); 3 against 2.25 shown as 2.3 is +30%, not +33%."""
    assert shown_avg(15.75) == 15.8 and change_words(17, 15.75, "en") == "8% more than"
    assert signed_pct(3, 2.25) == "+30%" and avg_text(2.25) == "2.3"
    assert signed_pct(42, 36.5) == "+15%" and change_words(42, 36.5, "en") == "15% more than"


def test_a_change_is_never_rounded_away_nor_to_all() -> None:
    """1 PR against 213 is "99% fewer", never "100% fewer" while PRs were merged; 200 against 199
    is "1% more", never "as many as"; none at all is 100% fewer."""
    assert pct_change(1, 213) == -99 and change_words(1, 213, "en") == "99% fewer than"
    assert pct_change(0, 213) == -100
    assert pct_change(200, 199) == 1 and change_words(200, 199, "en") == "1% more than"
    assert pct_change(199, 200) == -1 and change_words(6, 6, "en") == "as many as"
    assert pct_change(3, 2) == 50 and pct_change(1, 8) == -88  # half up: -87.5 → -88


def test_counts_averages_and_lists() -> None:
    assert count(1, "en") == "1 PR" and count(1234, "en") == "1,234 PRs" and count(7, "zh") == "7 个 PR"
    # one decimal, half up (2.25 is 2.3, not Python's round-to-even 2.2); whole averages whole
    assert [avg_text(v) for v in (209.75, 5.75, 2.25, 28.25, 0.5, 6.0, 36.5)] == [
        "209.8",
        "5.8",
        "2.3",
        "28.3",
        "0.5",
        "6",
        "36.5",
    ]
    assert avg_text(None) == "—"
    # the percentage is computed from the average as shown: 222 against 209.8 is +5.8% → 6%
    assert change_words(222, 209.75, "en") == "6% more than" and change_words(222, 209.75, "zh") == "多 6%"
    assert change_words(5, 0, "en") == "against"
    assert join_list(["a", "b"], "zh") == "a、b" and join_list([], "en") == "—"
    assert zh_spacing("集中在NVIDIA（20个）") == "集中在 NVIDIA（20 个）"
