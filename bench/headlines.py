"""Hand-written notable PRs that give each recent week a story.

Filler PRs from the catalog make a week look busy; these make it worth reading: the latest
week mirrors the themes of the team's hand-written report (AutoWeightsLoader migrations, CPU
FP8/GDN work, ROCm fused shared experts and an AITER bump, speculative-decoding models and the
Tree Attention removal, the NIXL refactor, measured speedups, tool parsers, breaking removals),
and the five weeks before it each carry their own smaller set, so trends and comparisons have
something to show. ``week`` counts back from the latest week (0 = latest). Every name, number
and person here is fictional; the topics are modelled on real vLLM work of spring 2026.

Files are ``(path, additions, deletions)`` or ``(path, additions, deletions, change_type)`` and
``(path, additions, deletions, "renamed", previous_path)``.
"""

from __future__ import annotations

from dataclasses import dataclass

FileSpec = tuple[str, int, int] | tuple[str, int, int, str] | tuple[str, int, int, str, str]


@dataclass(frozen=True)
class Headline:
    week: int
    title: str
    purpose: str
    files: tuple[FileSpec, ...]
    plan: str = ""
    result: str = ""
    author: int | None = None
    labels: tuple[str, ...] = ()
    number: int | None = None
    """The PR number of the real PR the team's hand-written report cites for this change (the
    latest week uses them, so `pr 42121` is the Tree Attention removal as in the report); None:
    numbered in merge order like the filler."""


H = Headline
_MODELS = "vllm/model_executor/models"
_KV = "vllm/distributed/kv_transfer/kv_connector/v1"
_GSM8K = (
    "|Tasks|Version|     Filter     |n-shot|  Metric   |   |Value |   |Stderr|\n"
    "|-----|------:|----------------|-----:|-----------|---|-----:|---|-----:|\n"
    "|gsm8k|      3|flexible-extract|     5|exact_match|↑  |{a}|±  |0.0063|\n"
    "|     |       |strict-match    |     5|exact_match|↑  |{b}|±  |0.0066|"
)


def _awl(
    model: str,
    cls: str,
    stem: str,
    adds: int,
    dels: int,
    author: int,
    series: str = "",
    number: int | None = None,
) -> Headline:
    tag = f"[Model]{series} " if series != "-" else ""
    return H(
        0,
        f"{tag}Migrate {model} to AutoWeightsLoader",
        f"Part of the AutoWeightsLoader migration (#41213). Moves `load_weights` from `{cls}ForCausalLM` "
        "down to "
        f"`{cls}Model` and delegates to `AutoWeightsLoader`, so the hand-written loop over stacked "
        "parameters, "
        "expert mappings and skipped prefixes goes away. No behaviour change is intended.",
        ((f"{_MODELS}/{stem}.py", adds, dels),),
        plan=f"pytest tests/models/test_initialization.py -k {cls}\n"
        "lm_eval --model vllm --tasks gsm8k (before/after)",
        result="Accuracy unchanged:\n\n" + _GSM8K.format(a="0.9212", b="0.9181"),
        author=author,
        number=number,
    )


HEADLINES: tuple[Headline, ...] = (
    # ---- week 0: the latest full week --------------------------------------------------------------
    _awl("DeepSeekV2", "DeepseekV2", "deepseek_v2", 52, 118, 0, number=41706),
    _awl("AXK1", "AXK1", "axk1", 35, 71, 17, number=41901),
    _awl("CohereMoe", "CohereMoe", "cohere_moe", 41, 66, 37, " [2/N]", number=41690),
    _awl("Plamo2", "Plamo2", "plamo2", 29, 58, 4, number=41699),
    _awl("Bailing MoE", "BailingMoe", "bailing_moe", 33, 62, 17, "-"),
    _awl("Ernie 4.5 MoE", "Ernie4_5_Moe", "ernie45_moe", 27, 49, 41),
    H(
        0,
        "[Bugfix] Fix num_redundant_experts lookup under PP after the AutoWeightsLoader migration",
        "After #41706-style migrations, `load_weights` reads `num_redundant_experts` from the first MoE "
        "layer, which "
        "does not exist on a pipeline rank that holds only dense layers. Read it from the EPLB config "
        "instead.",
        (
            (f"{_MODELS}/deepseek_v2.py", 14, 6),
            (f"{_MODELS}/utils.py", 11, 2),
            ("tests/models/test_initialization.py", 18, 0),
        ),
        plan="pytest tests/models/test_initialization.py -k 'DeepseekV2 and pp'",
        result="Passes with PP=2.",
        author=35,
    ),
    # CPU backend
    H(
        0,
        "[CPU] Add W8A16 FP8 block-quantized linear for CPU",
        "Adds a W8A16 linear method for block-quantized FP8 checkpoints on the CPU backend, using AMX-BF16 "
        "tiles to "
        "dequantize and multiply in one pass instead of dequantizing the whole weight up front.",
        (
            ("csrc/cpu/sgl-kernels/fp8_gemm.cpp", 412, 0, "added"),
            ("csrc/cpu/torch_bindings.cpp", 18, 0),
            ("vllm/model_executor/layers/quantization/fp8.py", 36, 4),
            ("vllm/_custom_ops.py", 22, 0),
            ("tests/kernels/quantization/test_cpu_fp8_gemm.py", 118, 0, "added"),
        ),
        plan="pytest tests/kernels/quantization/test_cpu_fp8_gemm.py\n"
        "vllm bench throughput on Qwen3-8B-FP8, 56-core SPR",
        result="2.1× faster than the dequantize-then-GEMM fallback; output tokens/s 143.2 → 301.7.",
        author=6,
        number=41186,
    ),
    H(
        0,
        "[CPU] FP8 MoE kernel with AMX",
        "Adds an FP8 fused MoE kernel for the CPU backend built on the AMX tile instructions, so FP8 MoE "
        "checkpoints such as Qwen3-30B-A3B-FP8 no longer fall back to the unquantized path on Xeon.",
        (
            ("csrc/cpu/sgl-kernels/moe_fp8.cpp", 655, 0, "added"),
            ("csrc/cpu/sgl-kernels/moe.cpp", 41, 12),
            ("vllm/model_executor/layers/fused_moe/cpu_fused_moe.py", 73, 9),
            ("csrc/cpu/torch_bindings.cpp", 12, 0),
        ),
        plan="vllm bench throughput --model Qwen/Qwen3-30B-A3B-FP8 --device cpu",
        result="MoE layer time 3.4× faster; end-to-end throughput 58.1 → 121.6 tok/s.",
        author=6,
        number=41314,
    ),
    H(
        0,
        "[CPU] Pure PyTorch Gated DeltaNet for Qwen3.5/3.6 on CPU",
        "Implements the Gated DeltaNet (GDN) attention ops in plain PyTorch for the CPU backend, so the "
        "hybrid "
        "Qwen3.5 and Qwen3.6 models run on CPU. Accuracy verified on GSM8K.",
        (
            ("vllm/model_executor/layers/mamba/ops/cpu_gdn.py", 287, 0, "added"),
            (f"{_MODELS}/qwen3_next.py", 24, 6),
            ("vllm/platforms/cpu.py", 8, 2),
            ("tests/kernels/mamba/test_cpu_gdn.py", 96, 0, "added"),
        ),
        plan="pytest tests/kernels/mamba/test_cpu_gdn.py; lm_eval gsm8k on Qwen3.5-9B --device cpu",
        result=_GSM8K.format(a="0.8802", b="0.8741"),
        author=3,
        number=41025,
    ),
    H(
        0,
        "[CPU] Sync CPU kernels from SGLang (INT4, FLA, conv1d)",
        "Syncs the latest CPU kernels from SGLang: INT4 weight-only GEMM, FLA chunked kernels and causal "
        "conv1d, "
        "and unifies the quantization enums between the two copies. Keeps our patches on top.",
        (
            ("csrc/cpu/sgl-kernels/gemm_int4.cpp", 842, 0, "added"),
            ("csrc/cpu/sgl-kernels/fla.cpp", 611, 0, "added"),
            ("csrc/cpu/sgl-kernels/conv.cpp", 388, 0, "added"),
            ("csrc/cpu/sgl-kernels/gemm.cpp", 214, 187),
            ("csrc/cpu/sgl-kernels/common.h", 96, 41),
            ("csrc/cpu/sgl-kernels/vec.h", 133, 58),
            ("csrc/cpu/torch_bindings.cpp", 44, 9),
            ("cmake/cpu_extension.cmake", 12, 3),
        ),
        plan="Existing CPU CI; tests/kernels on a Sapphire Rapids box.",
        result="All CPU kernel tests pass.",
        author=6,
        number=41924,
    ),
    H(
        0,
        "[CPU][RISC-V] Auto-bind OMP threads on RISC-V",
        "`VLLM_CPU_OMP_THREADS_BIND=auto` only understood x86 and Arm topologies. Parse the RISC-V hart "
        "layout so "
        "that threads are bound automatically there too.",
        (("vllm/platforms/cpu.py", 31, 6), ("vllm/v1/worker/cpu_worker.py", 12, 3)),
        author=28,
        number=40569,
    ),
    H(
        0,
        "[CPU][Bugfix] Fix the CPU build on non-x86 platforms",
        "The AMX sources were compiled unconditionally and broke the build on Arm, POWER and RISC-V.",
        (("cmake/cpu_extension.cmake", 14, 6), ("csrc/cpu/utils.cpp", 9, 2)),
        author=28,
        number=40575,
    ),
    # ROCm
    H(
        0,
        "[ROCm] Fused shared experts (FSE) for Qwen3-Next",
        "Fuses the shared expert of Qwen3-Next into the AITER MoE kernel as an extra always-selected "
        "expert. A "
        "separate router class keeps the existing routers free of FSE conditionals. "
        "Gives 16–24% higher decode throughput on MI355X.",
        (
            ("vllm/model_executor/layers/fused_moe/rocm_aiter_fused_moe.py", 188, 21),
            ("vllm/model_executor/layers/fused_moe/router/fused_shared_expert_router.py", 146, 0, "added"),
            (f"{_MODELS}/qwen3_next.py", 38, 12),
            ("vllm/_aiter_ops.py", 44, 0),
            ("tests/kernels/moe/test_rocm_aiter_fse.py", 121, 0, "added"),
        ),
        plan="vllm bench serve --model Qwen/Qwen3-Next-80B-A3B-Instruct -tp 4, concurrency 8/32/128",
        result="| concurrency | before tok/s | after tok/s | gain |\n|---|---|---|---|\n"
        "| 8 | 612 | 760 | +24% |\n"
        "| 32 | 1894 | 2246 | +19% |\n| 128 | 4410 | 5118 | +16% |",
        author=14,
        number=39280,
    ),
    H(
        0,
        "[ROCm][Perf] Fuse the GDN Triton kernels and split the HPU path",
        "Merges the gating, recurrence and output-norm Triton kernels of Gated DeltaNet into one launch on "
        "ROCm and "
        "moves the HPU-specific branch into its own function. Decode throughput improves by 5-8%.",
        (
            ("vllm/model_executor/layers/fla/ops/fused_recurrent.py", 210, 96),
            ("vllm/model_executor/layers/mamba/gdn_linear_attn.py", 41, 27),
        ),
        plan="vllm bench serve on Qwen3.5-35B-A3B, MI300X",
        author=2,
        number=40711,
    ),
    H(
        0,
        "[ROCm] Bump AITER to v0.1.13-rc5",
        "Updates AITER from v0.1.12 to v0.1.13-rc5, which carries the MLA decode fix for TP4 and the FP8 MoE shuffle "
        "changes "
        "the next PRs depend on.",
        (("docker/Dockerfile.rocm_base", 2, 2), ("requirements/rocm.txt", 1, 1)),
        author=14,
        number=42113,
    ),
    H(
        0,
        "[ROCm][Bugfix] Restore the MoE weight shuffle flag lost in the AITER path",
        "`is_shuffled` was dropped when the MoE layer was rebuilt for AITER, so weights were shuffled twice.",
        (
            ("vllm/model_executor/layers/fused_moe/rocm_aiter_fused_moe.py", 9, 3),
            ("vllm/model_executor/layers/fused_moe/layer.py", 4, 1),
        ),
        author=33,
        number=42061,
    ),
    H(
        0,
        "[ROCm][Bugfix] Fix allow_allreduce and RMSNorm fusion with AITER",
        "The AITER all-reduce + RMSNorm fusion ignored `allow_allreduce=False` and fused across a PP "
        "boundary.",
        (
            ("vllm/compilation/passes/fusion/rocm_aiter_fusion.py", 37, 15),
            ("vllm/distributed/device_communicators/cuda_communicator.py", 8, 2),
            ("tests/compile/test_fusion.py", 26, 0),
        ),
        author=2,
        number=41972,
    ),
    H(
        0,
        "[ROCm][Bugfix] Fix the MLA prefill softmax scale",
        "The MLA prefill path on ROCm applied the softmax scale for the rope head dim only.",
        (
            ("vllm/v1/attention/backends/mla/rocm_aiter_mla.py", 11, 4),
            ("tests/v1/attention/test_mla_backends.py", 22, 0),
        ),
        author=45,
        number=41569,
    ),
    H(
        0,
        "[ROCm] Support TP4 with AITER MLA when heads per rank < 16",
        "AITER's MLA decode kernel needs at least 16 heads; at TP4 DeepSeek has 32/4 = 8 per rank. Pad the "
        "query "
        "heads and slice the output.",
        (("vllm/v1/attention/backends/mla/rocm_aiter_mla.py", 46, 8),),
        author=14,
        number=41835,
    ),
    # speculative decoding
    H(
        0,
        "[Spec Decode] Add the Cohere EAGLE draft model",
        "Adds an EAGLE draft model for Command A that fuses the input embeddings with the target model's "
        "hidden "
        "states before the single decoder layer.",
        (
            (f"{_MODELS}/cohere_eagle.py", 318, 0, "added"),
            (f"{_MODELS}/registry.py", 2, 0),
            ("vllm/config/speculative.py", 6, 1),
        ),
        plan='vllm serve CohereLabs/c4ai-command-a-03-2025 --speculative-config \'{"method": "eagle", ...}\'',
        result="Mean acceptance length 2.71 on MT-Bench.",
        author=16,
        number=42078,
    ),
    H(
        0,
        "[Spec Decode] Gemma 4 MTP speculative decoding with centroids masking",
        "Adds multi-token prediction for Gemma 4 as a lightweight auxiliary model. Centroids masking "
        "restricts the "
        "draft lm_head to the most likely vocabulary clusters, which cuts its cost by an order of magnitude. "
        "Up to 319% end-to-end speedup on H100.",
        (
            (f"{_MODELS}/gemma4_mtp.py", 402, 0, "added"),
            ("vllm/v1/spec_decode/eagle.py", 57, 12),
            ("vllm/config/speculative.py", 11, 2),
            (f"{_MODELS}/registry.py", 2, 0),
            ("tests/v1/e2e/test_spec_decode.py", 31, 0),
        ),
        plan='vllm bench serve --model google/gemma-4-31b-it --speculative-config \'{"method": "mtp", '
        '"num_speculative_tokens": 4}\'',
        result="| batch | baseline tok/s | MTP tok/s |\n|---|---|---|\n| 1 | 61 | 256 |\n| 8 | 402 | 1120 |",
        author=50,
        number=41745,
    ),
    H(
        0,
        "[Attention] Remove the Tree Attention backend",
        "Removes the Tree Attention backend and the tree-drafting branch of the EAGLE proposer. It never "
        "supported "
        "CUDA graphs or chunked prefill, had no users we know of, and blocks the attention backend refactor. "
        "Removes ~1400 lines.\n\nThis is a breaking change: `speculative_token_tree` is no longer accepted "
        "in "
        "`--speculative-config`, and `TREE_ATTN` is no longer a valid `VLLM_ATTENTION_BACKEND`.",
        (
            ("vllm/v1/attention/backends/tree_attn.py", 0, 512, "removed"),
            ("vllm/v1/spec_decode/eagle.py", 6, 388),
            ("vllm/config/speculative.py", 2, 41),
            ("vllm/v1/attention/backends/registry.py", 0, 4),
            ("tests/v1/attention/test_tree_attention.py", 0, 298, "removed"),
            ("tests/v1/spec_decode/test_tree_drafting.py", 0, 163, "removed"),
            ("docs/features/spec_decode.md", 0, 22),
        ),
        plan="CI",
        result="Spec decode e2e tests pass.",
        author=12,
        labels=("deprecation",),
        number=42121,
    ),
    H(
        0,
        "[Spec Decode] MTP support for MiMo-V2.5",
        "Adds the MTP layer of MiMo-V2.5 as a speculative decoding method. Draft KV sharing with the target "
        "is not "
        "wired up yet, so acceptance is lower than reported upstream.",
        ((f"{_MODELS}/mimo_v2_mtp.py", 233, 0, "added"), (f"{_MODELS}/registry.py", 1, 0)),
        author=51,
        number=41905,
    ),
    # KV transfer
    H(
        0,
        "[KV Connector][3/N] NIXL: plan-based transfers",
        "Third step of the NIXL refactor. Introduces `EngineTransferPlan` and `RegionPlan`, which "
        "precompute the "
        "transfer geometry once per remote engine, so the hot path no longer branches on dense vs Mamba "
        "layers. "
        "The TP mapping logic moves into its own module.",
        (
            (f"{_KV}/nixl_connector.py", 420, 388),
            (f"{_KV}/nixl/transfer_plan.py", 310, 0, "added"),
            (f"{_KV}/nixl/tp_mapping.py", 176, 0, "added"),
            ("tests/v1/kv_connector/unit/test_nixl_connector.py", 140, 60),
        ),
        plan="pytest tests/v1/kv_connector/unit/test_nixl_connector.py; P/D e2e with heterogeneous TP (2→4)",
        result="All pass; transfer time per request unchanged within noise.",
        author=10,
        number=40731,
    ),
    H(
        0,
        "[KV Connector] Add MooncakeKVConnectorStats for transfer monitoring",
        "Adds `MooncakeKVConnectorStats`, which records transfer duration, bytes and failures per step and "
        "reports "
        "them through the KV connector stats logger. Updates are guarded by a lock because the transfer "
        "threads "
        "report concurrently.",
        (
            (f"{_KV}/mooncake/mooncake_connector.py", 96, 8),
            (f"{_KV}/mooncake/mooncake_stats.py", 120, 0, "added"),
            ("tests/v1/kv_connector/unit/test_mooncake_stats.py", 84, 0, "added"),
        ),
        author=51,
        number=40414,
    ),
    H(
        0,
        "[KV Offload][Bugfix] Fix block size under DCP/PCP in OffloadingConnector",
        "With decode or prefill context parallelism the offloading connector used the un-scaled block size.",
        (
            (f"{_KV}/offloading_connector.py", 18, 6),
            ("tests/v1/kv_connector/unit/test_offloading_connector.py", 44, 0),
        ),
        author=8,
        number=41549,
    ),
    H(
        0,
        "[P/D] Make DecodeBenchConnector support HMA",
        "Implements `SupportsHMA` in `DecodeBenchConnector` so it can benchmark hybrid models.",
        ((f"{_KV}/decode_bench_connector.py", 37, 9),),
        author=51,
        number=41770,
    ),
    H(
        0,
        "[KV Connector] Remove support for the legacy KVConnector constructor (pre-v0.12.0)",
        "Connectors had to accept `kv_cache_config` since v0.12.0 and the old two-argument constructor has "
        "logged "
        "a deprecation warning since then. This removes the compatibility shim.\n\n"
        "BREAKING CHANGE: out-of-tree connectors that still implement `__init__(self, vllm_config, role)` no "
        "longer load.",
        (
            (f"{_KV}/base.py", 6, 48),
            ("vllm/distributed/kv_transfer/kv_connector/factory.py", 3, 37),
            (f"{_KV}/lmcache_connector.py", 2, 14),
            ("tests/v1/kv_connector/unit/test_factory.py", 0, 36),
        ),
        author=10,
        labels=("deprecation",),
        number=39832,
    ),
    # performance and observability
    H(
        0,
        "[Helion][Perf] Replace regex config keys with a structured CaseKey",
        "Helion kernel configs were looked up by matching regex strings on every call. Replace the string "
        "keys with "
        "a structured `CaseKey` dataclass and a dict lookup. Over 80,000 calls `pick_config` drops from "
        "1289μs to "
        "1.8μs per call, 719× faster.\n\nThe on-disk config format changes: the config key `case_regex` is "
        "renamed "
        "to `case`, and existing tuned configs must be regenerated or converted with "
        "`tools/helion/migrate_configs.py`.",
        (
            ("vllm/kernels/helion/config_manager.py", 164, 121),
            ("vllm/kernels/helion/configs/silu_mul_fp8/nvidia_h100.json", 40, 40),
            ("vllm/kernels/helion/configs/silu_mul_fp8/nvidia_b200.json", 40, 40),
            ("vllm/kernels/helion/configs/rms_norm_fp8/nvidia_h100.json", 36, 36),
            ("tools/helion/migrate_configs.py", 74, 0, "added"),
            ("tests/kernels/helion/test_config_manager.py", 88, 20),
        ),
        plan="python benchmarks/kernels/bench_helion_pick_config.py",
        result="1289μs → 1.8μs per call.",
        author=21,
        number=40850,
    ),
    H(
        0,
        "[Perf] Warn on unexpected Triton JIT compilation after warmup",
        "Registers a Triton JIT hook after warmup that logs a warning with the kernel name and "
        "specialization "
        "whenever a kernel compiles during inference, so warmup gaps show up in logs instead of as latency "
        "spikes.",
        (
            ("vllm/compilation/triton_jit_monitor.py", 118, 0, "added"),
            ("vllm/v1/worker/gpu_worker.py", 14, 1),
            ("vllm/envs.py", 6, 0),
        ),
        author=45,
        number=40137,
    ),
    H(
        0,
        "[Perf] Remove GPU-CPU syncs from the attention metadata builders",
        "`seq_lens.max().item()` forced a device sync in every step. Use the CPU-side copy we already have. "
        "3.1% higher output throughput at batch 256.",
        (
            ("vllm/v1/attention/backends/utils.py", 22, 31),
            ("vllm/v1/attention/backends/flashinfer.py", 9, 14),
            ("vllm/v1/attention/backends/mla/common.py", 12, 18),
        ),
        author=45,
        number=41434,
    ),
    H(
        0,
        "[Perf] Remove a GPU-CPU sync from the pooler",
        "The sequence pooler called `.tolist()` on a device tensor to split the hidden states.",
        (("vllm/model_executor/layers/pooler/seqwise.py", 15, 19),),
        author=59,
        number=41433,
    ),
    H(
        0,
        "[MoE] Replace shared-memory routing replay with a device cache",
        "Routing replay (used by RL trainers to reproduce expert choices) went through shared memory, which "
        "broke "
        "under CUDA graphs and across nodes. Replace it with a preallocated device cache and an async D2H "
        "pipeline. "
        "The public API is unchanged.",
        (
            ("vllm/model_executor/layers/fused_moe/routing_replay.py", 241, 198),
            ("vllm/v1/worker/gpu_model_runner.py", 38, 22),
            ("vllm/distributed/routing_replay_shm.py", 0, 156, "removed"),
            ("tests/v1/worker/test_routing_replay.py", 103, 0, "added"),
        ),
        author=31,
        number=39917,
    ),
    H(
        0,
        "[Model Loader] Make safetensors prefetch configurable",
        "Adds `--safetensors-prefetch-size` so that loading from network storage can read ahead.",
        (
            ("vllm/model_executor/model_loader/weight_utils.py", 31, 8),
            ("vllm/config/load.py", 12, 0),
            ("vllm/engine/arg_utils.py", 9, 0),
        ),
        author=13,
        number=41499,
    ),
    H(
        0,
        "[Frontend][Perf] Zero-copy embedding serialization",
        "Serialize embeddings straight from the output tensor's buffer instead of going through Python "
        "floats. "
        "2.3× faster response serialization for 4096-dim embeddings.",
        (("vllm/entrypoints/pooling/embed/serving.py", 44, 29), ("vllm/entrypoints/pooling/utils.py", 36, 0)),
        author=59,
        number=41681,
    ),
    H(
        0,
        "[Core] Remove the redundant worker thread from UniProcExecutor",
        "UniProcExecutor started a thread only to call back into the same process.",
        (("vllm/v1/executor/uniproc_executor.py", 12, 34),),
        author=44,
        number=40891,
    ),
    # tool calling
    H(
        0,
        "[Tool Parser] Add an LFM2/LFM2.5 tool parser",
        "Adds a tool parser for Liquid's LFM2 and LFM2.5 models, based on the sentinel tokens and an AST "
        "parse of "
        "the Python-style call list. Handles the streaming edge cases where a sentinel is split across "
        "chunks.",
        (
            ("vllm/tool_parsers/lfm2_tool_parser.py", 296, 0, "added"),
            ("vllm/tool_parsers/__init__.py", 4, 0),
            ("tests/tool_parsers/test_lfm2_tool_parser.py", 214, 0, "added"),
            ("docs/features/tool_calling.md", 18, 0),
        ),
        author=25,
        number=39243,
    ),
    H(
        0,
        "Bump xgrammar to 0.2.0",
        "Bumps xgrammar from 0.1.29 to 0.2.0 and uses its structural tags for strict tool calling. The strict "
        "mode is off by default until we have more coverage.",
        (
            ("requirements/common.txt", 1, 1),
            ("vllm/v1/structured_output/backend_xgrammar.py", 47, 12),
            ("vllm/tool_parsers/structural_tags.py", 61, 0, "added"),
        ),
        author=36,
        number=40894,
    ),
    H(
        0,
        "[Tool Parser][Bugfix] Fix DeepSeek-V3.2/V4 streaming tool calls",
        "The streaming parser emitted the function name twice when the name and the first argument arrived "
        "in one "
        "delta.",
        (
            ("vllm/tool_parsers/deepseekv32_tool_parser.py", 28, 11),
            ("tests/tool_parsers/test_deepseekv32_tool_parser.py", 40, 0),
        ),
        author=25,
        number=41801,
    ),
    H(
        0,
        "[Bugfix] Fix the Gemma 4 tool parser with nested JSON arguments",
        "Nested objects in arguments were cut at the first closing brace.",
        (("vllm/tool_parsers/gemma4_tool_parser.py", 16, 7),),
        author=22,
        number=41991,
    ),
    H(
        0,
        "fix(tool_parsers): GLM-4.7 parser drops trailing arguments",
        "The last argument was dropped when the closing tag arrived in the same chunk.",
        (
            ("vllm/tool_parsers/glm47_moe_tool_parser.py", 9, 3),
            ("tests/tool_parsers/test_glm47_moe_tool_parser.py", 22, 0),
        ),
        author=7,
        number=42026,
    ),
    H(
        0,
        "[Tool Parser] Fix Mistral tool call IDs in streaming mode",
        "Streaming responses used a fresh random ID per delta instead of one per call.",
        (("vllm/tool_parsers/mistral_tool_parser.py", 12, 5),),
        author=25,
        number=41730,
    ),
    # quantization
    H(
        0,
        "[NVFP4][Perf] Fuse all-gather with GEMM for NVFP4 under SP + AsyncTP",
        "Adds a compilation pass that fuses the sequence-parallel all-gather with the following NVFP4 GEMM "
        "using "
        "FlashInfer's fused kernel. Blackwell only. 13.5% higher throughput on long sequences.",
        (
            ("vllm/compilation/passes/fusion/collective_fusion.py", 238, 14),
            ("vllm/model_executor/layers/quantization/utils/nvfp4_utils.py", 41, 0),
            ("vllm/config/compilation.py", 6, 1),
        ),
        plan="vllm bench serve --input-len 32000 on Llama-3.3-70B-NVFP4, B200 x4",
        author=5,
        number=41882,
    ),
    H(
        0,
        "[Quantization] Add MXFP4 support for Qwen3.5 MoE",
        "Wires MXFP4 expert weights for Qwen3.5 MoE through the Marlin MXFP4 MoE kernel.",
        (("vllm/model_executor/layers/quantization/mxfp4.py", 88, 14), (f"{_MODELS}/qwen3_5.py", 12, 3)),
        author=29,
    ),
    # breaking changes
    H(
        0,
        "[Frontend] Remove the deprecated --disable-log-requests flag",
        "`--disable-log-requests` has been deprecated since v0.11 in favour of `--enable-log-requests` "
        "(request "
        "logging is off by default). This removes the CLI flag; passing it is now an error.",
        (
            ("vllm/engine/arg_utils.py", 2, 19),
            ("vllm/entrypoints/openai/cli_args.py", 0, 6),
            ("docs/usage/troubleshooting.md", 1, 3),
        ),
        author=36,
    ),
    H(
        0,
        "[Weight Transfer] Change the weight transfer API to take named tensors",
        "`update_weights` now takes a list of `(name, tensor)` pairs instead of parallel name/dtype/shape "
        "lists. "
        "This is a breaking change for RL frameworks that call the old signature.",
        (
            ("vllm/distributed/weight_transfer/base.py", 58, 41),
            ("vllm/distributed/weight_transfer/nccl_engine.py", 33, 27),
            ("examples/rl/rlhf_nccl.py", 14, 19),
            ("tests/distributed/test_weight_transfer.py", 36, 22),
        ),
        author=50,
        number=39212,
    ),
    H(
        0,
        "[Core] Rename the config key long_prefill_token_threshold to long_prefill_threshold",
        "Renames `scheduler_config.long_prefill_token_threshold` to `long_prefill_threshold` to match the "
        "CLI. The "
        "old config key is removed; configs that set it fail validation with a pointer to the new name.",
        (
            ("vllm/config/scheduler.py", 9, 9),
            ("vllm/v1/core/sched/scheduler.py", 4, 4),
            ("vllm/engine/arg_utils.py", 3, 3),
            ("tests/v1/core/test_scheduler.py", 6, 6),
        ),
        author=12,
    ),
    # a large new model and a dependabot bump
    H(
        0,
        "[New Model] Add Step-3.5",
        "Adds Step-3.5 (a 196B MoE with MLA and a vision encoder) including its config class and processor.",
        (
            (f"{_MODELS}/step3p5.py", 1240, 0, "added"),
            (f"{_MODELS}/registry.py", 2, 0),
            ("vllm/transformers_utils/configs/step3p5.py", 168, 0, "added"),
            ("vllm/transformers_utils/configs/__init__.py", 2, 0),
            ("tests/models/registry.py", 3, 0),
            ("docs/models/supported_models.md", 1, 0),
        ),
        plan="vllm serve stepfun-ai/Step-3.5 -tp 8; lm_eval gsm8k",
        result=_GSM8K.format(a="0.9431", b="0.9409"),
        author=4,
    ),
    H(
        0,
        "Bump actions/checkout from 5 to 6",
        "Bumps [actions/checkout](https://github.com/actions/checkout) from 5 to 6.",
        ((".github/workflows/pre-commit.yml", 1, 1), (".github/workflows/cleanup_pr_body.yml", 1, 1)),
        author=-1,
    ),
    # ---- week 1 ------------------------------------------------------------------------------------
    H(
        1,
        "[Model Runner V2][11/N] Support pipeline parallelism",
        "Adds PP support to Model Runner V2: intermediate tensors are sent between stages and the sampler "
        "only runs "
        "on the last rank.",
        (
            ("vllm/v1/worker/gpu/model_runner.py", 188, 41),
            ("vllm/v1/worker/gpu/pp_utils.py", 97, 0, "added"),
            ("tests/v1/worker/test_model_runner_v2.py", 64, 0),
        ),
        author=16,
    ),
    H(
        1,
        "[Perf] Cache get_kv_cache_spec per layer type",
        "`get_kv_cache_spec` walked every layer at startup. Cache it per layer type; cuts engine startup by "
        "4.2 s "
        "for 96-layer models.",
        (("vllm/v1/worker/gpu_model_runner.py", 21, 14), ("vllm/v1/kv_cache_interface.py", 17, 3)),
        author=12,
    ),
    H(
        1,
        "[V0 Deprecation] Remove the LLMEngine compatibility shim",
        "Removes `vllm/engine/llm_engine.py`, the V0 compatibility shim that forwarded to the V1 engine, "
        "and its "
        "deprecated entry points. Removes ~2100 lines. Breaking: `from vllm.engine.llm_engine import "
        "LLMEngine` no "
        "longer works; use `vllm.v1.engine.llm_engine`.",
        (
            ("vllm/engine/llm_engine.py", 0, 1264, "removed"),
            ("vllm/engine/async_llm_engine.py", 0, 611, "removed"),
            ("vllm/entrypoints/llm.py", 6, 22),
            ("vllm/__init__.py", 2, 4),
            ("tests/engine/test_llm_engine_shim.py", 0, 190, "removed"),
        ),
        author=44,
        labels=("deprecation",),
    ),
    H(
        1,
        "[CI/Build] Upgrade torch to 2.11.0",
        "Upgrade PyTorch to 2.11.0 for CUDA builds, with the matching torchvision/torchaudio and xformers "
        "wheels.",
        (
            ("requirements/cuda.txt", 4, 4),
            ("requirements/build.txt", 1, 1),
            ("pyproject.toml", 1, 1),
            ("docker/Dockerfile", 6, 6),
            ("CMakeLists.txt", 2, 2),
            ("requirements/test.txt", 12, 12),
            ("vllm/compilation/backends.py", 9, 15),
        ),
        author=43,
    ),
    H(
        1,
        "[Kernel] Blackwell FP8 block-scaled grouped GEMM for MoE",
        "Adds a CUTLASS 4 grouped GEMM for FP8 block-scaled MoE on SM100. Up to 1.37x faster MoE layers on "
        "B200 "
        "than the DeepGEMM path for small batches.",
        (
            ("csrc/moe/cutlass_grouped_gemm_sm100.cu", 734, 0, "added"),
            ("csrc/moe/torch_bindings.cpp", 14, 0),
            ("vllm/model_executor/layers/fused_moe/cutlass_moe.py", 96, 18),
            ("CMakeLists.txt", 21, 2),
            ("tests/kernels/moe/test_cutlass_moe.py", 88, 4),
        ),
        author=48,
    ),
    H(
        1,
        "[KV Connector][2/N] NIXL: extract the TP mapping",
        "Moves the remote-rank mapping out of `NixlConnectorWorker` into a helper with unit tests.",
        ((f"{_KV}/nixl_connector.py", 96, 141), ("tests/v1/kv_connector/unit/test_nixl_connector.py", 58, 0)),
        author=10,
    ),
    H(
        1,
        "[CPU] Enable W8A8 INT8 on Arm with KleidiAI",
        "Uses KleidiAI micro-kernels for W8A8 INT8 GEMMs on Arm. 1.8x faster prefill on Graviton4.",
        (
            ("csrc/cpu/kleidiai_gemm.cpp", 266, 0, "added"),
            ("cmake/cpu_extension.cmake", 19, 2),
            ("vllm/model_executor/layers/quantization/kernels/scaled_mm/cpu.py", 41, 6),
        ),
        author=3,
    ),
    H(
        1,
        "[Frontend] Remove the --tokenizer-pool-size and --tokenizer-pool-type flags",
        "The tokenizer pool was a V0 feature and both flags have been no-ops since v0.10. Removes the CLI "
        "flags; "
        "passing them is now an error.",
        (("vllm/engine/arg_utils.py", 0, 27), ("vllm/config/model.py", 0, 12)),
        author=36,
    ),
    # ---- week 2 ------------------------------------------------------------------------------------
    H(
        2,
        "[Model Runner V2][9/N] CUDA graph support for speculative decoding",
        "Captures the EAGLE draft loop in Model Runner V2 with full CUDA graphs.",
        (
            ("vllm/v1/worker/gpu/spec_decode/eagle.py", 142, 37),
            ("vllm/v1/worker/gpu/cudagraph_utils.py", 51, 12),
        ),
        author=16,
    ),
    H(
        2,
        "[Core] Enable async scheduling by default",
        "Async scheduling has been stable for two releases; turn it on by default. 6–9% higher throughput on "
        "small models where the CPU overhead dominates.",
        (
            ("vllm/config/scheduler.py", 4, 2),
            ("vllm/engine/arg_utils.py", 6, 3),
            ("vllm/v1/core/sched/async_scheduler.py", 12, 5),
            ("tests/v1/core/test_async_scheduler.py", 22, 3),
        ),
        author=12,
    ),
    H(
        2,
        "[Quantization] Remove the deprecated deepspeedfp quantization backend",
        "Removes the `deepspeedfp` quantization backend, deprecated since v0.10 and untested since. "
        "Breaking: "
        "`--quantization deepspeedfp` is no longer accepted.",
        (
            ("vllm/model_executor/layers/quantization/deepspeedfp.py", 0, 194, "removed"),
            ("vllm/model_executor/layers/quantization/__init__.py", 0, 5),
        ),
        author=29,
    ),
    H(
        2,
        "[Bugfix] Fix the DeepSeek-V3.2 sparse indexer with FP8 KV cache",
        "The indexer read the FP8 cache as bf16.",
        (
            ("vllm/v1/attention/backends/mla/indexer.py", 23, 9),
            ("tests/v1/attention/test_sparse_mla_backends.py", 41, 0),
        ),
        author=0,
    ),
    H(
        2,
        "[Perf] Replace torch.cumsum in top-p sampling with a fused kernel",
        "Sampler time per step 412μs → 96μs at batch 256.",
        (
            ("vllm/v1/sample/ops/topk_topp_sampler.py", 58, 31),
            ("vllm/v1/sample/ops/topp_triton.py", 133, 0, "added"),
            ("tests/v1/sample/test_topk_topp_sampler.py", 37, 0),
        ),
        author=50,
    ),
    H(
        2,
        "[Transformers v5] Require Transformers 5",
        "Drop support for Transformers 4.x and require transformers>=5.0.",
        (
            ("requirements/common.txt", 1, 1),
            ("vllm/transformers_utils/config.py", 21, 96),
            ("vllm/tokenizers/hf.py", 8, 31),
        ),
        author=40,
    ),
    H(
        2,
        "[Hardware][Power] Enable VSX kernels on ppc64le",
        "Builds the CPU kernels with VSX on POWER10.",
        (("cmake/cpu_extension.cmake", 22, 4), ("csrc/cpu/cpu_types_vsx.hpp", 41, 7)),
        author=28,
    ),
    # ---- week 3 ------------------------------------------------------------------------------------
    H(
        3,
        "[Model Runner V2][7/N] Support LoRA",
        "Adds LoRA to Model Runner V2.",
        (
            ("vllm/v1/worker/gpu/model_runner.py", 77, 12),
            ("vllm/v1/worker/gpu/lora_utils.py", 104, 0, "added"),
        ),
        author=16,
    ),
    H(
        3,
        "[Refactor] Move the remaining vllm/attention modules into model_executor/layers/attention",
        "Completes the move away from `vllm/attention`: layers go to `vllm/model_executor/layers/attention`, "
        "backend utilities to `vllm/v1/attention`. Imports from the old paths are gone.",
        tuple(
            (f"vllm/model_executor/layers/attention/{n}.py", 4, 4, "renamed", f"vllm/attention/{n}.py")
            for n in (
                "layer",
                "selector",
                "utils",
                "mla",
                "chunked_local",
                "cross",
                "encoder_only",
                "static_sink",
                "kv_sharing",
                "mm_encoder",
                "linear_attn",
                "ops_paged",
                "ops_prefix",
                "ops_merge_states",
            )
        )
        + tuple(
            (f"{p}", 3, 3)
            for p in (
                "vllm/model_executor/models/llama.py",
                "vllm/model_executor/models/qwen3_moe.py",
                "vllm/model_executor/models/deepseek_v2.py",
                "vllm/model_executor/models/gemma3.py",
                "vllm/model_executor/models/gpt_oss.py",
                "vllm/model_executor/models/glm4_moe.py",
                "vllm/model_executor/models/mllama4.py",
                "vllm/model_executor/models/qwen2_5_vl.py",
                "vllm/model_executor/models/whisper.py",
                "vllm/model_executor/models/bert.py",
                "vllm/v1/worker/gpu_model_runner.py",
                "vllm/v1/attention/backends/flash_attn.py",
                "vllm/v1/attention/backends/flashinfer.py",
                "vllm/v1/attention/backends/triton_attn.py",
                "vllm/platforms/cuda.py",
                "vllm/platforms/rocm.py",
                "vllm/compilation/backends.py",
                "tests/kernels/attention/test_attention.py",
                "tests/v1/attention/utils.py",
                "docs/design/attention_backends.md",
            )
        ),
        author=21,
    ),
    H(
        3,
        "[Build] Bump nixl to 0.9.0",
        "Upgrade NIXL to 0.9.0 for the UCX 1.19 fixes.",
        (("requirements/kv_connectors.txt", 1, 1), ("docker/Dockerfile", 2, 2)),
        author=10,
    ),
    H(
        3,
        "[Spec Decode] Add PARD parallel draft models",
        "Adds PARD, which drafts several tokens in one forward pass of a small model.",
        (
            ("vllm/v1/spec_decode/pard.py", 221, 0, "added"),
            ("vllm/config/speculative.py", 14, 2),
            ("tests/v1/spec_decode/test_pard.py", 77, 0, "added"),
        ),
        author=16,
    ),
    H(
        3,
        "[ROCm] Enable MXFP4 MoE via AITER on MI355X",
        "Routes MXFP4 MoE through AITER's CK kernels on gfx950. Up to 41% higher output throughput for "
        "gpt-oss-120b.",
        (
            ("vllm/model_executor/layers/quantization/mxfp4.py", 63, 11),
            ("vllm/model_executor/layers/fused_moe/rocm_aiter_fused_moe.py", 48, 6),
        ),
        author=14,
    ),
    # ---- week 4 ------------------------------------------------------------------------------------
    H(
        4,
        "[Model Runner V2][5/N] Structured outputs",
        "Applies grammar bitmasks in Model Runner V2.",
        (
            ("vllm/v1/worker/gpu/structured_outputs.py", 96, 0, "added"),
            ("vllm/v1/worker/gpu/model_runner.py", 31, 4),
        ),
        author=16,
    ),
    H(
        4,
        "[KV Offload] CPU offloading for hybrid models",
        "Makes the CPU offloading connector work with the hybrid memory allocator.",
        (
            ("vllm/v1/kv_offload/cpu.py", 88, 21),
            (f"{_KV}/offloading_connector.py", 54, 19),
            ("tests/v1/kv_offload/test_cpu_offloading.py", 49, 2),
        ),
        author=8,
    ),
    H(
        4,
        "[EPLB][Perf] Overlap expert weight rebalancing with compute",
        "Moves expert weights on a side stream during decode. Rebalancing stalls drop from 310 ms to 12 ms.",
        (
            ("vllm/distributed/eplb/rebalance_execute.py", 121, 44),
            ("vllm/distributed/eplb/eplb_state.py", 36, 9),
        ),
        author=35,
    ),
    H(
        4,
        "[CI/Build] Build the release images with CUDA 12.9",
        "Release images move to CUDA 12.9.1.",
        (("docker/Dockerfile", 3, 3), (".buildkite/release-pipeline.yaml", 8, 8)),
        author=43,
    ),
    H(
        4,
        "[Core] Remove the num_scheduler_steps option",
        "Multi-step scheduling was a V0 feature; the `--num-scheduler-steps` flag is removed.",
        (("vllm/config/scheduler.py", 0, 14), ("vllm/engine/arg_utils.py", 0, 9)),
        author=12,
    ),
    # ---- week 5 ------------------------------------------------------------------------------------
    H(
        5,
        "[Model Runner V2][3/N] Logprobs",
        "Returns sample and prompt logprobs from Model Runner V2.",
        (
            ("vllm/v1/worker/gpu/sample/logprob.py", 141, 0, "added"),
            ("vllm/v1/worker/gpu/model_runner.py", 22, 3),
        ),
        author=16,
    ),
    H(
        5,
        "[Frontend] Remove --task in favour of --runner and --convert",
        "`--task` was deprecated in v0.10; removes the CLI flag.",
        (
            ("vllm/engine/arg_utils.py", 3, 31),
            ("vllm/config/model.py", 8, 57),
            ("docs/models/pooling_models.md", 6, 14),
        ),
        author=59,
    ),
    H(
        5,
        "[Helion] Add Helion kernels for SiLU-and-mul with FP8 quant",
        "First Helion kernels in-tree, with autotuned configs for H100 and B200.",
        (
            ("vllm/kernels/helion/silu_mul_fp8.py", 118, 0, "added"),
            ("vllm/kernels/helion/config_manager.py", 203, 0, "added"),
            ("tests/kernels/helion/test_silu_mul_fp8.py", 61, 0, "added"),
        ),
        author=21,
    ),
    H(
        5,
        "[MoE Refactor][12/N] Move DeepEP into the modular kernel framework",
        "DeepEP high-throughput and low-latency all2all become prepare/finalize classes.",
        (
            ("vllm/model_executor/layers/fused_moe/deepep_ht_prepare_finalize.py", 166, 120),
            ("vllm/model_executor/layers/fused_moe/deepep_ll_prepare_finalize.py", 141, 98),
            ("vllm/model_executor/layers/fused_moe/layer.py", 20, 64),
        ),
        author=31,
    ),
    H(
        5,
        "Bump transformers to 5.0.0",
        "Bump transformers to 5.0.0 in the test requirements.",
        (("requirements/test.in", 1, 1), ("requirements/test.txt", 3, 3)),
        author=40,
    ),
)
