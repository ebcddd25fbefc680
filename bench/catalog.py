"""What vLLM-like PRs are made of: areas, title subjects, file layout, people and slot values.

Data only (plus tiny dataclasses), kept apart from the generator so the realism can be tuned
without touching the mechanics. Paths follow vLLM's 2026 layout (see
../shared/reference/vllm-taxonomy.md); title subjects are modelled on real merged titles but
every PR, person and number produced from them is fictional.

Subject templates use ``str.format`` slots filled per PR by the generator:
``{model}`` ``{model_file}`` ``{hf}`` (a model family), ``{mm_model}`` ``{mm_file}`` (multimodal),
``{quant}``, ``{hw}``, ``{backend}`` ``{backend_file}``, ``{parser}`` ``{parser_file}``,
``{connector}`` ``{connector_file}``, ``{op}``, ``{env}``, ``{pct}``, ``{n}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# -- slot values ------------------------------------------------------------------------------

# (display name, file stem under vllm/model_executor/models/, Hugging Face id)
MODELS: tuple[tuple[str, str, str], ...] = (
    ("DeepSeek-V3.2", "deepseek_v2", "deepseek-ai/DeepSeek-V3.2"),
    ("DeepSeek-V4", "deepseek_v4", "deepseek-ai/DeepSeek-V4-Flash"),
    ("Qwen3-Next", "qwen3_next", "Qwen/Qwen3-Next-80B-A3B-Instruct"),
    ("Qwen3.5", "qwen3_5", "Qwen/Qwen3.5-35B-A3B"),
    ("Qwen3-MoE", "qwen3_moe", "Qwen/Qwen3-30B-A3B-Instruct-2507"),
    ("Gemma 4", "gemma4", "google/gemma-4-31b-it"),
    ("Llama 4", "llama4", "meta-llama/Llama-4-Scout-17B-16E-Instruct"),
    ("Llama 3", "llama", "meta-llama/Llama-3.1-8B-Instruct"),
    ("GLM-4.7", "glm4_moe", "zai-org/GLM-4.7"),
    ("Kimi-K2.5", "kimi_k25", "moonshotai/Kimi-K2.5"),
    ("MiniMax-M2", "minimax_m2", "MiniMaxAI/MiniMax-M2.1"),
    ("gpt-oss", "gpt_oss", "openai/gpt-oss-120b"),
    ("Mistral Large 3", "mistral_large_3", "mistralai/Mistral-Large-3-675B-Instruct-2512"),
    ("Command A", "cohere2", "CohereLabs/c4ai-command-a-03-2025"),
    ("MiMo-V2.5", "mimo_v2", "XiaomiMiMo/MiMo-V2.5"),
    ("Nemotron-H", "nemotron_h", "nvidia/Nemotron-H-56B-Base-8K"),
    ("Granite 4.0", "granitemoehybrid", "ibm-granite/granite-4.0-h-small"),
    ("Ernie 4.5", "ernie45_moe", "baidu/ERNIE-4.5-21B-A3B-PT"),
    ("Hunyuan-A13B", "hunyuan_v1", "tencent/Hunyuan-A13B-Instruct"),
    ("Olmo 3", "olmo3", "allenai/Olmo-3-7B-Instruct"),
    ("Seed-OSS", "seed_oss", "ByteDance-Seed/Seed-OSS-36B-Instruct"),
    ("Phi-4-mini", "phi3", "microsoft/Phi-4-mini-instruct"),
)

# How often each of MODELS turns up in filler titles (DeepSeek, Qwen, Llama, gpt-oss dominate).
MODEL_WEIGHTS: tuple[int, ...] = (8, 4, 6, 6, 5, 4, 4, 5, 4, 3, 3, 5, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1)
MM_MODELS: tuple[tuple[str, str, str], ...] = (
    ("Qwen3-VL", "qwen3_vl", "Qwen/Qwen3-VL-30B-A3B-Instruct"),
    ("Qwen3-Omni", "qwen3_omni_moe_thinker", "Qwen/Qwen3-Omni-30B-A3B-Instruct"),
    ("InternVL3.5", "internvl", "OpenGVLab/InternVL3_5-8B"),
    ("GLM-4.6V", "glm4_1v", "zai-org/GLM-4.6V"),
    ("Gemma 4", "gemma4_mm", "google/gemma-4-31b-it"),
    ("Kimi-VL", "kimi_vl", "moonshotai/Kimi-VL-A3B-Instruct"),
    ("Llama 4", "mllama4", "meta-llama/Llama-4-Scout-17B-16E-Instruct"),
    ("Phi-4-multimodal", "phi4mm", "microsoft/Phi-4-multimodal-instruct"),
    ("MiniCPM-V 4.5", "minicpmv", "openbmb/MiniCPM-V-4_5"),
    ("Whisper", "whisper", "openai/whisper-large-v3-turbo"),
)

QUANTS = ("FP8", "NVFP4", "MXFP4", "W4A16", "W8A8 INT8", "AWQ", "GPTQ", "FP8 block-scaled", "MXFP8")
HARDWARE = ("H100", "H200", "B200", "GB200", "MI300X", "MI325X", "MI355X", "L40S", "A100", "RTX PRO 6000")
NV_HARDWARE = ("H100", "H200", "B200", "GB200", "L40S", "A100", "RTX PRO 6000")
AMD_HARDWARE = ("MI300X", "MI325X", "MI355X")

# (display name, file under vllm/v1/attention/backends/)
BACKENDS: tuple[tuple[str, str], ...] = (
    ("FlashInfer", "flashinfer.py"),
    ("FlashAttention", "flash_attn.py"),
    ("Triton attention", "triton_attn.py"),
    ("FlashMLA", "mla/flashmla.py"),
    ("CUTLASS MLA", "mla/cutlass_mla.py"),
    ("FlexAttention", "flex_attention.py"),
    ("FlashInfer MLA", "mla/flashinfer_mla.py"),
    ("TRTLLM-Gen attention", "flashinfer.py"),
)

# (display name, file stem under vllm/tool_parsers/)
PARSERS: tuple[tuple[str, str], ...] = (
    ("Hermes", "hermes_tool_parser"),
    ("Qwen3-Coder", "qwen3coder_tool_parser"),
    ("DeepSeek-V3.2", "deepseekv32_tool_parser"),
    ("GLM-4.7", "glm47_moe_tool_parser"),
    ("Kimi-K2", "kimi_k2_tool_parser"),
    ("MiniMax-M2", "minimax_m2_tool_parser"),
    ("Mistral", "mistral_tool_parser"),
    ("Llama 3 JSON", "llama_tool_parser"),
    ("Gemma 4", "gemma4_tool_parser"),
    ("Olmo 3", "olmo3_tool_parser"),
    ("gpt-oss", "openai_tool_parser"),
    ("Seed-OSS", "seed_oss_tool_parser"),
)

PARSER_WEIGHTS: tuple[int, ...] = (4, 5, 4, 2, 2, 2, 3, 2, 2, 1, 4, 1)

# (display name, file under vllm/distributed/kv_transfer/kv_connector/v1/)
CONNECTORS: tuple[tuple[str, str], ...] = (
    ("NixlConnector", "nixl_connector.py"),
    ("LMCacheConnectorV1", "lmcache_connector.py"),
    ("MooncakeConnector", "mooncake/mooncake_connector.py"),
    ("OffloadingConnector", "offloading_connector.py"),
    ("P2pNcclConnector", "p2p/p2p_nccl_connector.py"),
    ("MultiConnector", "multi_connector.py"),
)

CONNECTOR_WEIGHTS: tuple[int, ...] = (6, 3, 3, 4, 1, 1)

OPS = (
    "RMSNorm",
    "SiLU-and-mul",
    "rotary embedding",
    "top-k softmax",
    "grouped top-k",
    "per-token FP8 quant",
    "moe_align_block_size",
    "reshape_and_cache_flash",
    "GELU-tanh",
    "fused add RMSNorm",
)
ENVS = (
    "VLLM_USE_DEEP_GEMM",
    "VLLM_ALLREDUCE_USE_SYMM_MEM",
    "VLLM_ROCM_USE_AITER_MHA",
    "VLLM_MOE_DP_CHUNK_SIZE",
    "VLLM_ENABLE_V1_MULTIPROCESSING",
    "VLLM_USE_FLASHINFER_SAMPLER",
    "VLLM_CPU_OMP_THREADS_BIND",
)

# Dependency bumps drawn by filler PRs: (package, versions to pick from, files touched)
DEPENDENCIES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("flashinfer", ("0.6.1", "0.6.2", "0.6.3"), ("requirements/cuda.txt", "docker/Dockerfile")),
    (
        "torch",
        ("2.10.0", "2.11.0"),
        (
            "requirements/cuda.txt",
            "requirements/build.txt",
            "pyproject.toml",
            "docker/Dockerfile",
            "CMakeLists.txt",
        ),
    ),
    ("transformers", ("5.1.0", "5.2.0", "5.3.0"), ("requirements/common.txt", "requirements/test.txt")),
    ("triton", ("3.5.1", "3.6.0"), ("requirements/cuda.txt",)),
    ("nixl", ("0.8.0", "0.9.0"), ("requirements/kv_connectors.txt", "docker/Dockerfile")),
    ("lm-eval", ("0.4.10", "0.4.11"), ("requirements/test.in", "requirements/test.txt")),
    ("mistral_common", ("1.9.0", "1.9.1", "1.10.0"), ("requirements/common.txt", "requirements/test.txt")),
    ("llguidance", ("1.4.0", "1.5.0"), ("requirements/common.txt",)),
    ("DeepGEMM", ("v2.1.1", "v2.2.0"), ("tools/install_deepgemm.sh", "docker/Dockerfile")),
    ("ray", ("2.53.0", "2.54.0"), ("requirements/cuda.txt", "requirements/test.txt")),
    ("openai-harmony", ("0.0.8", "0.1.0"), ("requirements/common.txt",)),
    ("compressed-tensors", ("0.13.0", "0.13.1"), ("requirements/common.txt",)),
    ("CUTLASS", ("v4.3.5", "v4.4.0"), ("CMakeLists.txt",)),
    ("FlashMLA", ("a1e3f9b", "5c2d7e0"), ("cmake/external_projects/flashmla.cmake",)),
)
GH_ACTIONS = (
    ("actions/setup-python", "5", "6"),
    ("actions/upload-artifact", "4", "5"),
    ("astral-sh/setup-uv", "6", "7"),
    ("github/codeql-action", "3", "4"),
)

# -- people -----------------------------------------------------------------------------------

# Fictional contributors: (login, display name). Each area lists its regulars by index below.
PEOPLE: tuple[tuple[str, str], ...] = (
    ("wchen-ml", "Wei Chen"),
    ("kdsouza", "Karen D'Souza"),
    ("rkumar-amd", "Rahul Kumar"),
    ("liyang-intel", "Li Yang"),
    ("mtanaka", "Masato Tanaka"),
    ("ppatel-nv", "Priya Patel"),
    ("zhaohua-cpu", "Zhao Hua"),
    ("jokafor", "Jude Okafor"),
    ("elena-vr", "Elena Varga"),
    ("sgupta-infra", "Sanjay Gupta"),
    ("hwang-kv", "Hyun Wang"),
    ("nbeaumont", "Nicolas Beaumont"),
    ("qzhang-sched", "Qian Zhang"),
    ("amiller-dev", "Alex Miller"),
    ("tnguyen-rocm", "Thanh Nguyen"),
    ("bfischer", "Ben Fischer"),
    ("yliu-spec", "Yue Liu"),
    ("omarh", "Omar Haddad"),
    ("ckowalski", "Celina Kowalski"),
    ("dmorozov", "Dmitri Morozov"),
    ("fsilva-br", "Fernanda Silva"),
    ("gxu-compile", "Gang Xu"),
    ("irossi", "Irene Rossi"),
    ("jpark-mm", "Jiwoo Park"),
    ("lhoffmann", "Lukas Hoffmann"),
    ("mali-tools", "Maryam Ali"),
    ("nsato-xpu", "Naoki Sato"),
    ("owright", "Olivia Wright"),
    ("pjoshi", "Pooja Joshi"),
    ("rchen-quant", "Ruiqi Chen"),
    ("sbrandt", "Stefan Brandt"),
    ("tli-moe", "Tian Li"),
    ("ukim", "Uri Kim"),
    ("vramos", "Victor Ramos"),
    ("xwu-lora", "Xin Wu"),
    ("ysun-dist", "Yi Sun"),
    ("zhe-frontend", "Zhe He"),
    ("aboateng", "Ama Boateng"),
    ("cdubois", "Camille Dubois"),
    ("dwei-docs", "Dan Wei"),
    ("ekarlsson", "Erik Karlsson"),
    ("hmoreau", "Hugo Moreau"),
    ("kpetrov", "Kirill Petrov"),
    ("lgarcia-ci", "Lucia Garcia"),
    ("mreyes", "Mateo Reyes"),
    ("nhuang-perf", "Ning Huang"),
    ("pvolkov", "Pavel Volkov"),
    ("rdas", "Riya Das"),
    ("sfeng-kernels", "Shu Feng"),
    ("tyamada", "Taro Yamada"),
    ("wzhou-rl", "Wen Zhou"),
    ("yhan-pd", "Yu Han"),
    ("zlin-ascend", "Zi Lin"),
    ("bolsen", "Britt Olsen"),
    ("jcohen", "Jacob Cohen"),
    ("klee-tpu", "Kevin Lee"),
    ("mbianchi", "Marco Bianchi"),
    ("rsingh-eval", "Rohan Singh"),
    ("sma-rust", "Shan Ma"),
    ("tkhan", "Tariq Khan"),
)
DEPENDABOT = "dependabot[bot]"

# -- areas ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    """One kind of change an area sees: how it is titled and explained, and what it touches.

    ``kind`` drives the title tag, the size, the add/delete balance and the test habit:
    fix, feat, perf, refactor, misc, remove, dep, doc, ci.
    """

    kind: str
    title: str
    purpose: str
    files: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    effect: bool = False
    small: bool = False


@dataclass(frozen=True)
class Area:
    """A part of the code base with its tags, files, regular authors and typical changes."""

    name: str
    weight: float
    tags: tuple[str, ...]
    src: tuple[str, ...]
    tests: tuple[str, ...]
    subjects: tuple[Subject, ...]
    people: tuple[int, ...]
    test_rate: float = 0.55
    series: float = 0.0
    scope: str = ""
    extra: tuple[str, ...] = field(default=())


S = Subject
_M = "vllm/model_executor/models/{model_file}.py"
_MM = "vllm/model_executor/models/{mm_file}.py"
_PARSER = "vllm/tool_parsers/{parser_file}.py"
_PARSER_TEST = "tests/tool_parsers/test_{parser_file}.py"
_CONN = "vllm/distributed/kv_transfer/kv_connector/v1/{connector_file}"
_BACKEND = "vllm/v1/attention/backends/{backend_file}"

AREAS: tuple[Area, ...] = (
    Area(
        "rocm",
        19.0,
        ("[ROCm]", "[ROCm]", "[ROCm]", "[AMD]", "[Hardware][AMD]"),
        (
            "vllm/platforms/rocm.py",
            "vllm/_aiter_ops.py",
            "vllm/v1/attention/backends/rocm_aiter_fa.py",
            "vllm/v1/attention/backends/rocm_attn.py",
            "vllm/v1/attention/backends/mla/rocm_aiter_mla.py",
            "vllm/model_executor/layers/fused_moe/rocm_aiter_fused_moe.py",
            "vllm/model_executor/layers/quantization/quark/quark.py",
            "vllm/model_executor/layers/quantization/quark/quark_moe.py",
            "csrc/rocm/attention.cu",
            "csrc/rocm/skinny_gemms.cu",
            "vllm/model_executor/layers/layernorm.py",
            "vllm/compilation/passes/fusion/rocm_aiter_fusion.py",
        ),
        (
            "tests/kernels/attention/test_aiter_flash_attn.py",
            "tests/rocm/aiter/test_mla_fp8_support_check.py",
            "tests/kernels/moe/test_rocm_aiter_topk.py",
            "tests/quantization/test_quark.py",
        ),
        (
            S(
                "fix",
                "Fix AITER MLA decode on {model} with TP{tp}",
                "Decode with the AITER MLA backend returns garbage for {model} because the head count per "
                "rank drops below the kernel's minimum at TP{tp}. Pad the heads to 16 and slice the output.",
            ),
            S(
                "fix",
                "Fix FP8 KV cache scale loading for ROCm attention",
                "The k/v scales were read before the checkpoint was loaded, so they stayed at 1.0 on ROCm.",
            ),
            S(
                "feat",
                "Enable AITER fused MoE for {quant} on {amd}",
                "Route {quant} MoE layers through the AITER fused kernel on {amd}.",
                effect=True,
            ),
            S(
                "perf",
                "Use skinny GEMM for small-batch decode on {amd}",
                "Dispatch M<=4 GEMMs to the skinny kernel, which is faster than hipBLASLt at decode batch "
                "sizes.",
                effect=True,
            ),
            S(
                "fix",
                "Fix import error when AITER is not installed",
                "`vllm/_aiter_ops.py` imported aiter at module level; make the import lazy so that ROCm "
                "builds "
                "without AITER start again.",
                small=True,
            ),
            S(
                "feat",
                "Support sliding window in ROCm AITER FA backend",
                "Adds sliding-window support to the AITER flash-attention backend so that {model} runs on "
                "ROCm "
                "without falling back to the Triton backend.",
            ),
            S(
                "ci",
                "Re-enable {count} skipped AMD CI tests",
                "These tests were skipped on MI300 while the AITER regression was investigated; it is fixed "
                "now.",
                files=(".buildkite/scripts/hardware_ci/run-amd-test.sh", ".buildkite/test_areas/amd.yaml"),
            ),
            S(
                "fix",
                "Fix quark {quant} MoE weight loading",
                "Loading a quark-quantized {quant} MoE checkpoint crashed on the expert scale shape.",
            ),
            S(
                "perf",
                "Fuse RMSNorm and {quant} quant with AITER",
                "Adds a compilation pass that fuses RMSNorm with the following quantization on ROCm.",
                effect=True,
            ),
            S(
                "refactor",
                "Consolidate AITER enablement checks into rocm_aiter_ops",
                "The `is_aiter_enabled()` checks were copied into nine files with subtly different env var "
                "handling; move them into one helper.",
            ),
        ),
        (2, 14, 15, 33, 45),
        test_rate=0.35,
        series=0.02,
        scope="rocm",
    ),
    Area(
        "ci",
        17.0,
        ("[CI]", "[CI/Build]", "[CI/Build]", "[Build]", "[CI]"),
        (
            ".buildkite/test-pipeline.yaml",
            ".buildkite/test_areas/models.yaml",
            ".buildkite/test_areas/kernels.yaml",
            ".buildkite/test_areas/distributed.yaml",
            ".buildkite/release-pipeline.yaml",
            ".buildkite/scripts/hardware_ci/run-amd-test.sh",
            ".github/workflows/pre-commit.yml",
            ".github/mergify.yml",
            ".pre-commit-config.yaml",
            "CMakeLists.txt",
            "tools/pre_commit/mypy.py",
            ".buildkite/scripts/run-benchmarks.sh",
            ".buildkite/test_areas/entrypoints.yaml",
        ),
        ("tests/conftest.py", "tests/utils.py"),
        (
            S(
                "ci",
                "Fix flaky {test} test",
                "The test is flaky on the L4 runners because it depends on the order in which requests "
                "finish. "
                "Sort the outputs before comparing.",
                small=True,
            ),
            S(
                "ci",
                "Split the {test} job into two shards",
                "The job takes over 70 minutes; split it so that it stays under the 60 minute timeout.",
                files=(".buildkite/test-pipeline.yaml",),
            ),
            S(
                "ci",
                "Skip {test} on Blackwell until the FlashInfer fix lands",
                "The test fails on B200 runners because of a known FlashInfer issue; skip it there.",
                small=True,
            ),
            S(
                "ci",
                "Only run the {test} tests when their sources change",
                "Narrow `source_file_dependencies` so that unrelated PRs stop running this job.",
            ),
            S(
                "ci",
                "Publish nightly images to the release registry automatically",
                "Nightly wheels are built but the images are pushed by hand; add a release step.",
            ),
            S(
                "ci",
                "Reduce Docker image size by dropping build-only packages",
                "The final image carried the CUDA toolkit headers; move them to the build stage.",
                effect=True,
                files=("docker/Dockerfile",),
            ),
            S("ci", "Fix `mypy` errors in {pkg}", "Enable mypy for {pkg} and fix the 37 errors it reports."),
            S(
                "ci",
                "Pin pre-commit hooks and update ruff",
                "Update the pinned ruff version and fix the new lint errors.",
                small=True,
            ),
            S(
                "ci",
                "Add a {gpus}-GPU smoke test for expert parallelism",
                "Adds a smoke test that runs a small MoE model with EP on {gpus} GPUs.",
            ),
            S(
                "dep",
                "Bump {dep} to {ver}",
                "Bump {dep} to {ver}, which fixes issues we have been working around.",
            ),
        ),
        (9, 43, 47, 7, 31, 53),
        test_rate=0.15,
        scope="ci",
    ),
    Area(
        "models",
        9.0,
        ("[Model]", "[Model]", "[Models]", "[Model]"),
        (
            _M,
            "vllm/model_executor/models/registry.py",
            "vllm/model_executor/models/utils.py",
            "vllm/model_executor/models/interfaces.py",
            "vllm/transformers_utils/configs/__init__.py",
        ),
        (
            "tests/models/registry.py",
            "tests/models/language/generation/test_common.py",
            "tests/models/test_initialization.py",
        ),
        (
            S(
                "fix",
                "Fix {model} weight loading with tied embeddings",
                "Loading {model} with `tie_word_embeddings=True` left lm_head uninitialised; skip its "
                "weight and "
                "tie it after loading.",
                files=(_M,),
            ),
            S(
                "fix",
                "Fix {model} under pipeline parallelism",
                "{model} crashed with PP>1 because the last rank looked up a layer it does not own.",
                files=(_M,),
            ),
            S(
                "feat",
                "Support {model} with {quant} checkpoints",
                "Add the packed-module mapping that {quant} checkpoints of {model} need.",
                files=(_M,),
            ),
            S(
                "feat",
                "Add LoRA support for {model}",
                "Implement `SupportsLoRA` for {model} and list the target modules.",
                files=(_M,),
            ),
            S(
                "refactor",
                "Simplify {model} by reusing the shared MoE block",
                "{model} carried its own copy of the sparse MoE block; use the shared implementation.",
                files=(_M,),
            ),
            S(
                "fix",
                "Fix {model} rope scaling config parsing",
                "The new `rope_parameters` format from Transformers v5 was not handled for {model}.",
                files=(_M, "vllm/transformers_utils/config.py"),
                small=True,
            ),
            S(
                "feat",
                "Enable EAGLE-3 for {model}",
                "Implement `SupportsEagle3` so that {model} can be used as an EAGLE-3 target.",
                files=(_M,),
            ),
            S(
                "misc",
                "Remove unused code from {model}",
                "Drop helpers in {model} that nothing calls since the V0 engine was removed.",
                files=(_M,),
            ),
        ),
        (0, 4, 12, 17, 20, 29, 41, 57),
        test_rate=0.45,
        scope="models",
    ),
    Area(
        "frontend",
        7.0,
        ("[Frontend]", "[Frontend]", "[Frontend]", "[Misc]", "[UX]"),
        (
            "vllm/entrypoints/openai/api_server.py",
            "vllm/entrypoints/openai/chat_completion/serving.py",
            "vllm/entrypoints/openai/completion/serving.py",
            "vllm/entrypoints/openai/responses/serving.py",
            "vllm/entrypoints/openai/engine/protocol.py",
            "vllm/entrypoints/llm.py",
            "vllm/entrypoints/chat_utils.py",
            "vllm/entrypoints/cli/serve.py",
            "vllm/entrypoints/serve/__init__.py",
            "vllm/engine/arg_utils.py",
            "vllm/entrypoints/utils.py",
            "vllm/renderers/hf.py",
        ),
        (
            "tests/entrypoints/openai/test_chat.py",
            "tests/entrypoints/openai/test_completion.py",
            "tests/entrypoints/openai/responses/test_basic.py",
            "tests/entrypoints/llm/test_generate.py",
            "tests/entrypoints/test_chat_utils.py",
        ),
        (
            S(
                "fix",
                "Fix `max_completion_tokens` being ignored in streaming chat completions",
                "When streaming, `max_completion_tokens` was not forwarded to the sampling params.",
            ),
            S(
                "feat",
                "Support `{field}` in the Responses API",
                "Adds support for `{field}` in `/v1/responses`, matching the OpenAI spec.",
            ),
            S(
                "fix",
                "Return 400 instead of 500 for invalid `logit_bias` keys",
                "Invalid token ids in `logit_bias` raised an unhandled exception.",
                small=True,
            ),
            S(
                "feat",
                "Add `--{cli}` option to `vllm serve`",
                "Adds a `--{cli}` CLI option so that operators can configure this without a code change.",
                files=("vllm/engine/arg_utils.py", "vllm/entrypoints/cli/serve.py"),
                small=True,
            ),
            S(
                "perf",
                "Avoid re-tokenizing the prompt in chat completions",
                "The chat template output was tokenized twice; reuse the first result.",
                effect=True,
            ),
            S(
                "refactor",
                "Move chat template resolution into the renderer",
                "Chat template lookup lived in three places; move it into `vllm/renderers` so that every "
                "entrypoint resolves templates the same way.",
            ),
            S(
                "fix",
                "Fix usage stats missing from the last streamed chunk",
                "With `stream_options.include_usage` the final chunk had no usage when `n>1`.",
            ),
            S(
                "misc",
                "Improve the error message for unsupported `response_format`",
                "Tell the user which formats are supported instead of a bare validation error.",
                small=True,
            ),
        ),
        (36, 22, 7, 25, 13, 49),
        test_rate=0.6,
        scope="frontend",
    ),
    Area(
        "moe",
        6.0,
        ("[Kernel][MoE]", "[MoE]", "[Kernel]", "[MoE Refactor]", "[Kernel][MoE]"),
        (
            "vllm/model_executor/layers/fused_moe/layer.py",
            "vllm/model_executor/layers/fused_moe/fused_moe.py",
            "vllm/model_executor/layers/fused_moe/modular_kernel.py",
            "vllm/model_executor/layers/fused_moe/config.py",
            "vllm/model_executor/layers/fused_moe/cutlass_moe.py",
            "vllm/model_executor/layers/fused_moe/deep_gemm_moe.py",
            "vllm/model_executor/layers/fused_moe/flashinfer_cutlass_moe.py",
            "vllm/model_executor/layers/fused_moe/fused_marlin_moe.py",
            "vllm/model_executor/layers/fused_moe/router/fused_topk_router.py",
            "vllm/model_executor/layers/fused_moe/shared_fused_moe.py",
            "csrc/moe/moe_align_sum_kernels.cu",
            "csrc/moe/topk_softmax_kernels.cu",
            "csrc/moe/grouped_topk_kernels.cu",
            "csrc/moe/torch_bindings.cpp",
        ),
        (
            "tests/kernels/moe/test_moe.py",
            "tests/kernels/moe/test_modular_kernel_combinations.py",
            "tests/kernels/moe/test_cutlass_moe.py",
            "tests/kernels/moe/test_grouped_topk.py",
        ),
        (
            S(
                "perf",
                "Tune fused MoE configs for {model} on {nv}",
                "Adds tuned Triton configs for the {model} expert shapes on {nv}.",
                effect=True,
                files=(
                    "vllm/model_executor/layers/fused_moe/configs/E=128,N=768,device_name=NVIDIA_H200.json",
                ),
            ),
            S(
                "fix",
                "Fix {quant} MoE with expert parallelism when experts are padded",
                "Padded experts were routed to rank 0 under EP, producing wrong outputs for {quant} MoE.",
            ),
            S(
                "refactor",
                "Move {quant} MoE into the modular kernel framework",
                "Port the {quant} MoE path to `FusedMoEModularKernel` so it composes with all2all backends.",
            ),
            S(
                "perf",
                "Use a persistent grouped top-k kernel for large expert counts",
                "The grouped top-k kernel launched one block per token group; make it persistent.",
                effect=True,
            ),
            S(
                "feat",
                "Add a FlashInfer CUTLASS MoE backend for {quant}",
                "Wire FlashInfer's CUTLASS MoE kernels as a backend for {quant} on Blackwell.",
            ),
            S(
                "fix",
                "Fix router logits dtype for shared experts",
                "Router logits were cast to bf16 before the softmax in the shared-expert path.",
                small=True,
            ),
            S(
                "refactor",
                "Split the MoE router out of FusedMoE",
                "Moves the routing logic into `fused_moe/router/` so that routers can be swapped per model.",
            ),
        ),
        (31, 48, 5, 18, 21),
        test_rate=0.5,
        series=0.25,
        scope="moe",
    ),
    Area(
        "kernels",
        4.5,
        ("[Kernel]", "[Kernel]", "[Perf]", "[Kernel][Perf]"),
        (
            "csrc/layernorm_kernels.cu",
            "csrc/activation_kernels.cu",
            "csrc/pos_encoding_kernels.cu",
            "csrc/cache_kernels.cu",
            "csrc/quantization/w8a8/fp8/common.cu",
            "csrc/quantization/w8a8/cutlass/scaled_mm_entry.cu",
            "csrc/ops.h",
            "csrc/torch_bindings.cpp",
            "CMakeLists.txt",
            "vllm/_custom_ops.py",
            "vllm/model_executor/layers/layernorm.py",
            "vllm/model_executor/layers/rotary_embedding/base.py",
            "vllm/model_executor/layers/activation.py",
            "vllm/kernels/triton/rms_norm.py",
        ),
        (
            "tests/kernels/core/test_layernorm.py",
            "tests/kernels/core/test_rotary_embedding.py",
            "tests/kernels/test_cache.py",
            "tests/kernels/core/test_activation.py",
        ),
        (
            S("perf", "Vectorize the {op} kernel", "Use 128-bit loads in the {op} kernel.", effect=True),
            S(
                "feat",
                "Add a fused {op} + quant kernel",
                "Adds a CUDA kernel that fuses {op} with the following quantization, saving one memory pass.",
                effect=True,
            ),
            S(
                "fix",
                "Fix {op} kernel for hidden sizes not divisible by 8",
                "The vectorized path read past the end of the row when the hidden size was not a multiple "
                "of 8.",
            ),
            S(
                "perf",
                "Use PDL for back-to-back kernels on Hopper",
                "Enable programmatic dependent launch between the attention output projection and the norm.",
                effect=True,
            ),
            S(
                "refactor",
                "Register {op} as a vLLM IR op",
                "Moves {op} to the vLLM IR op registry so that the compiler can pick an implementation.",
            ),
        ),
        (47, 5, 31, 18, 21),
        test_rate=0.55,
        scope="kernels",
    ),
    Area(
        "quantization",
        5.0,
        ("[Quantization]", "[Quant]", "[{qtag}]", "[{qtag}]", "[Compressed Tensors]"),
        (
            "vllm/model_executor/layers/quantization/fp8.py",
            "vllm/model_executor/layers/quantization/modelopt.py",
            "vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors.py",
            "vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors_moe.py",
            "vllm/model_executor/layers/quantization/compressed_tensors/schemes/compressed_tensors_w4a4_nvfp4.py",
            "vllm/model_executor/layers/quantization/mxfp4.py",
            "vllm/model_executor/layers/quantization/awq_marlin.py",
            "vllm/model_executor/layers/quantization/gptq_marlin.py",
            "vllm/model_executor/layers/quantization/utils/fp8_utils.py",
            "vllm/model_executor/layers/quantization/utils/nvfp4_utils.py",
            "csrc/quantization/fp4/nvfp4_quant_kernels.cu",
        ),
        (
            "tests/quantization/test_fp8.py",
            "tests/quantization/test_compressed_tensors.py",
            "tests/quantization/test_modelopt.py",
            "tests/kernels/quantization/test_nvfp4_quant.py",
        ),
        (
            S(
                "feat",
                "Support {quant} for {model}",
                "Adds {quant} support for {model}; the checkpoint uses per-group scales on the expert "
                "weights.",
            ),
            S(
                "fix",
                "Fix {quant} linear when the weight is not contiguous",
                "{quant} linear layers crashed when the loaded weight was a non-contiguous view.",
            ),
            S(
                "perf",
                "Use CUTLASS for {quant} GEMM on {nv}",
                "Switch the {quant} GEMM to CUTLASS on {nv}.",
                effect=True,
            ),
            S(
                "refactor",
                "Unify the {quant} weight processing paths",
                "Dense and MoE layers processed {quant} weights in two different ways; share one helper.",
            ),
            S(
                "fix",
                "Fix online FP8 quantization with CPU offloading",
                "Online FP8 quantization ran before the weights were moved back to the GPU.",
            ),
        ),
        (29, 5, 18, 30),
        test_rate=0.5,
        scope="quant",
    ),
    Area(
        "attention",
        4.0,
        ("[Attention]", "[Attention]", "[Kernel][Attention]", "[Perf]"),
        (
            _BACKEND,
            "vllm/v1/attention/backends/utils.py",
            "vllm/v1/attention/backends/registry.py",
            "vllm/v1/attention/selector.py",
            "vllm/model_executor/layers/attention/attention.py",
            "vllm/model_executor/layers/attention/mla_attention.py",
            "vllm/v1/attention/backends/mla/common.py",
        ),
        (
            "tests/v1/attention/test_attention_backends.py",
            "tests/v1/attention/test_mla_backends.py",
            "tests/kernels/attention/test_flashinfer.py",
        ),
        (
            S(
                "fix",
                "Fix {backend} with sliding window and prefix caching",
                "With prefix caching enabled, {backend} used the wrong window start for cached blocks.",
                files=(_BACKEND,),
            ),
            S(
                "perf",
                "Enable full CUDA graphs for {backend} decode",
                "Capture decode with full CUDA graphs for {backend}.",
                effect=True,
                files=(_BACKEND,),
            ),
            S(
                "feat",
                "Support FP8 KV cache in {backend}",
                "Adds FP8 KV cache support to {backend}.",
                files=(_BACKEND,),
            ),
            S(
                "refactor",
                "Move backend selection into the attention registry",
                "Backend priority lists were duplicated per platform; centralise them in the registry.",
            ),
            S(
                "fix",
                "Fix {backend} metadata builder for chunked prefill with spec decode",
                "The query start locations were off by the number of draft tokens.",
                files=(_BACKEND,),
            ),
        ),
        (21, 18, 5, 12, 47),
        test_rate=0.55,
        scope="attention",
    ),
    Area(
        "core",
        3.5,
        ("[Core]", "[Core]", "[Scheduler]", "[Core][Prefix Caching]"),
        (
            "vllm/v1/core/sched/scheduler.py",
            "vllm/v1/core/sched/output.py",
            "vllm/v1/core/kv_cache_manager.py",
            "vllm/v1/core/kv_cache_utils.py",
            "vllm/v1/core/block_pool.py",
            "vllm/v1/core/single_type_kv_cache_manager.py",
            "vllm/v1/request.py",
            "vllm/v1/kv_cache_interface.py",
            "vllm/config/scheduler.py",
        ),
        (
            "tests/v1/core/test_scheduler.py",
            "tests/v1/core/test_prefix_caching.py",
            "tests/v1/core/test_kv_cache_utils.py",
        ),
        (
            S(
                "fix",
                "Fix KV cache block leak when a request is aborted during prefill",
                "Aborting a request in the middle of a chunked prefill did not free its blocks.",
            ),
            S(
                "perf",
                "Reduce scheduler overhead for large batches",
                "Avoid rebuilding the per-request block lists every step.",
                effect=True,
            ),
            S(
                "feat",
                "Support hybrid allocator with {connector}",
                "Allow the hybrid KV cache manager to be used together with {connector}.",
            ),
            S(
                "fix",
                "Fix prefix caching hash collision for multimodal inputs",
                "Two images with the same placeholder range produced the same block hash.",
            ),
            S(
                "refactor",
                "Simplify the scheduler's preemption logic",
                "Preemption had three code paths for the same case; merge them.",
            ),
            S(
                "fix",
                "Fix stop-string handling when a stop string spans two detokenizer steps",
                "Stop strings split across incremental detokenization steps were missed.",
            ),
        ),
        (12, 0, 16, 35, 44),
        test_rate=0.7,
        scope="core",
    ),
    Area(
        "engine",
        3.0,
        ("[Core]", "[Engine]", "[V1]", "[Core]"),
        (
            "vllm/v1/engine/core.py",
            "vllm/v1/engine/core_client.py",
            "vllm/v1/engine/async_llm.py",
            "vllm/v1/engine/llm_engine.py",
            "vllm/v1/engine/output_processor.py",
            "vllm/v1/engine/input_processor.py",
            "vllm/v1/engine/detokenizer.py",
            "vllm/v1/executor/multiproc_executor.py",
            "vllm/v1/executor/uniproc_executor.py",
            "vllm/v1/executor/ray_executor.py",
        ),
        (
            "tests/v1/engine/test_engine_core.py",
            "tests/v1/engine/test_async_llm.py",
            "tests/v1/executor/test_executor.py",
        ),
        (
            S(
                "fix",
                "Fix engine core hang when a worker dies during startup",
                "The engine waited forever for the READY message of a worker that had already exited.",
            ),
            S(
                "perf",
                "Overlap output processing with the next model step",
                "Move detokenization off the critical path.",
                effect=True,
            ),
            S(
                "feat",
                "Add `pause_generation` / `resume_generation` to AsyncLLM",
                "RL frameworks need to pause generation while weights are updated.",
            ),
            S(
                "fix",
                "Fix data parallel engines not shutting down on SIGTERM",
                "With DP>1 the coordinator ignored SIGTERM.",
            ),
            S(
                "refactor",
                "Remove the unused `EngineCoreProc.step_with_batch_queue` fallback",
                "The fallback has been dead since the batch queue became the default.",
            ),
        ),
        (12, 35, 16, 44, 50),
        test_rate=0.6,
        scope="engine",
    ),
    Area(
        "mrv2",
        3.0,
        ("[Model Runner V2]", "[MRV2]", "[Model Runner V2]"),
        (
            "vllm/v1/worker/gpu/model_runner.py",
            "vllm/v1/worker/gpu/input_batch.py",
            "vllm/v1/worker/gpu/states.py",
            "vllm/v1/worker/gpu/cudagraph_utils.py",
            "vllm/v1/worker/gpu/sample/sampler.py",
            "vllm/v1/worker/gpu/spec_decode/eagle.py",
            "vllm/v1/worker/gpu/attn_utils.py",
            "vllm/v1/worker/gpu_model_runner.py",
            "vllm/v1/worker/gpu_worker.py",
        ),
        ("tests/v1/worker/test_model_runner_v2.py", "tests/v1/worker/test_gpu_model_runner.py"),
        (
            S(
                "feat",
                "Support {feature} in Model Runner V2",
                "Adds {feature} to Model Runner V2, one of the remaining gaps before it becomes the default.",
            ),
            S(
                "fix",
                "Fix CUDA graph padding for spec decode in Model Runner V2",
                "The padded batch size did not include the draft tokens.",
            ),
            S(
                "perf",
                "Use Triton kernels to prepare inputs in Model Runner V2",
                "Replace the Python loop that builds positions and slot mappings with a Triton kernel.",
                effect=True,
            ),
            S(
                "refactor",
                "Move sampling state into a dedicated class",
                "Sampling parameters were spread across the input batch; collect them in `SamplingStates`.",
            ),
        ),
        (16, 12, 44, 0),
        test_rate=0.45,
        series=0.35,
        scope="mrv2",
    ),
    Area(
        "spec",
        3.5,
        ("[Spec Decode]", "[Spec Decode]", "[SpecDecoding]", "[Speculative Decoding]"),
        (
            "vllm/v1/spec_decode/eagle.py",
            "vllm/v1/spec_decode/medusa.py",
            "vllm/v1/spec_decode/ngram_proposer.py",
            "vllm/v1/spec_decode/metadata.py",
            "vllm/v1/spec_decode/utils.py",
            "vllm/v1/spec_decode/draft_model.py",
            "vllm/config/speculative.py",
            "vllm/v1/sample/rejection_sampler.py",
            "vllm/model_executor/models/llama_eagle3.py",
            "vllm/model_executor/models/deepseek_mtp.py",
        ),
        (
            "tests/v1/spec_decode/test_eagle.py",
            "tests/v1/e2e/test_spec_decode.py",
            "tests/v1/spec_decode/test_ngram.py",
            "tests/v1/sample/test_rejection_sampler.py",
        ),
        (
            S(
                "feat",
                "Support EAGLE-3 drafts for {model}",
                "Adds support for EAGLE-3 draft heads trained for {model}.",
            ),
            S(
                "fix",
                "Fix acceptance rate drop with async scheduling",
                "With async scheduling the draft tokens of the previous step were discarded.",
            ),
            S(
                "perf",
                "Batch the draft model's prefill with the target's",
                "Run the draft model's prefill in the same forward pass.",
                effect=True,
            ),
            S(
                "feat",
                "Add MTP support for {model}",
                "Adds multi-token prediction layers for {model} as a speculative decoding method.",
            ),
            S(
                "fix",
                "Fix ngram proposer with prompt lookup beyond max_model_len",
                "The ngram proposer read tokens past the end of the buffer.",
            ),
        ),
        (16, 12, 0, 51),
        test_rate=0.5,
        series=0.05,
        scope="spec_decode",
    ),
    Area(
        "kv",
        4.5,
        ("[KV Connector]", "[P/D]", "[KV Offload]", "[KVConnector]", "[kv_offload+HMA]"),
        (
            _CONN,
            "vllm/distributed/kv_transfer/kv_connector/v1/base.py",
            "vllm/distributed/kv_transfer/kv_connector/factory.py",
            "vllm/distributed/kv_transfer/kv_connector/utils.py",
            "vllm/v1/kv_offload/cpu.py",
            "vllm/v1/kv_offload/worker/cpu_gpu.py",
            "vllm/v1/kv_offload/lru_manager.py",
            "vllm/config/kv_transfer.py",
        ),
        (
            "tests/v1/kv_connector/unit/test_nixl_connector.py",
            "tests/v1/kv_connector/unit/test_offloading_connector.py",
            "tests/v1/kv_offload/test_cpu_offloading.py",
            "tests/v1/kv_connector/unit/test_multi_connector.py",
        ),
        (
            S(
                "fix",
                "Fix {connector} with heterogeneous TP",
                "{connector} computed the remote block offsets with the local TP size.",
                files=(_CONN,),
            ),
            S(
                "feat",
                "Add hybrid memory allocator support to {connector}",
                "Lets {connector} transfer KV for hybrid (sliding window + full attention) models.",
                files=(_CONN,),
            ),
            S(
                "perf",
                "Transfer KV blocks in larger batches in {connector}",
                "Group contiguous blocks into one descriptor.",
                effect=True,
                files=(_CONN,),
            ),
            S(
                "fix",
                "Fix request leak when the decode side aborts in P/D",
                "The prefill side kept the blocks of an aborted request until timeout.",
            ),
            S(
                "feat",
                "Add offloading to local disk for the CPU offload connector",
                "Extends the CPU offload tier with a local disk tier.",
            ),
            S(
                "refactor",
                "Move KV transfer stats into a common base",
                "Each connector reported its own stats shape; add a shared base class.",
            ),
        ),
        (10, 51, 35, 0, 8),
        test_rate=0.5,
        series=0.12,
        scope="kv_transfer",
    ),
    Area(
        "distributed",
        2.5,
        ("[Distributed]", "[EPLB]", "[WideEP]", "[Distributed]"),
        (
            "vllm/distributed/parallel_state.py",
            "vllm/distributed/device_communicators/cuda_communicator.py",
            "vllm/distributed/device_communicators/all2all.py",
            "vllm/distributed/device_communicators/custom_all_reduce.py",
            "vllm/distributed/eplb/eplb_state.py",
            "vllm/distributed/eplb/rebalance_execute.py",
            "vllm/distributed/weight_transfer/nccl_engine.py",
            "vllm/config/parallel.py",
        ),
        (
            "tests/distributed/test_eplb_execute.py",
            "tests/distributed/test_comm_ops.py",
            "tests/distributed/test_custom_all_reduce.py",
        ),
        (
            S(
                "fix",
                "Fix EPLB rebalancing with redundant experts under PP",
                "Expert load balancing assumed every PP rank holds MoE layers.",
            ),
            S(
                "perf",
                "Use symmetric memory all-reduce for TP{tp} on {nv}",
                "Switch to the symmetric memory all-reduce for small messages.",
                effect=True,
            ),
            S(
                "feat",
                "Support DeepEP low-latency all2all with CUDA graphs",
                "Make the low-latency all2all path capturable.",
            ),
            S(
                "fix",
                "Fix custom all-reduce on systems without NVLink",
                "Custom all-reduce was enabled over PCIe and produced wrong results.",
                small=True,
            ),
        ),
        (35, 10, 18, 0),
        test_rate=0.45,
        scope="distributed",
    ),
    Area(
        "compile",
        3.5,
        ("[torch.compile]", "[compile]", "[Perf]", "[vLLM IR]", "[Helion]"),
        (
            "vllm/compilation/backends.py",
            "vllm/compilation/passes/fusion/rms_quant_fusion.py",
            "vllm/compilation/passes/pass_manager.py",
            "vllm/compilation/cuda_graph.py",
            "vllm/compilation/decorators.py",
            "vllm/compilation/wrapper.py",
            "vllm/config/compilation.py",
            "vllm/ir/op.py",
            "vllm/kernels/helion/config_manager.py",
            "vllm/model_executor/custom_op.py",
        ),
        (
            "tests/compile/test_fusion.py",
            "tests/compile/test_full_graph.py",
            "tests/compile/test_pass_manager.py",
        ),
        (
            S(
                "fix",
                "Fix recompilation when `max_num_seqs` changes",
                "The compile cache key did not include the batch size bucket list.",
            ),
            S(
                "perf",
                "Fuse {op} with the following quantization in the pass manager",
                "Adds a pattern for {op} + quant.",
                effect=True,
            ),
            S(
                "feat",
                "Cache compiled artifacts across processes",
                "Let data-parallel ranks reuse the compiled graph from rank 0.",
            ),
            S(
                "refactor",
                "Move custom op enablement into vLLM IR",
                "CustomOp dispatch moves to the IR op registry; old `custom_ops` names keep working.",
            ),
            S(
                "fix",
                "Fix piecewise CUDA graph capture with LoRA",
                "LoRA punica metadata was not captured as a graph input.",
            ),
        ),
        (21, 48, 5, 50),
        test_rate=0.5,
        series=0.1,
        scope="compile",
    ),
    Area(
        "multimodal",
        3.5,
        ("[MM]", "[Multimodal]", "[Model]", "[MM][Perf]"),
        (
            "vllm/multimodal/processing.py",
            "vllm/multimodal/inputs.py",
            "vllm/multimodal/parse.py",
            "vllm/multimodal/registry.py",
            "vllm/multimodal/video.py",
            "vllm/multimodal/audio.py",
            "vllm/multimodal/cache.py",
            _MM,
        ),
        (
            "tests/multimodal/test_processing.py",
            "tests/models/multimodal/processing/test_common.py",
            "tests/models/multimodal/generation/test_common.py",
        ),
        (
            S(
                "fix",
                "Fix {mm_model} video input with more than {frames} frames",
                "The frame sampler returned one frame too many for long videos.",
                files=(_MM,),
            ),
            S(
                "perf",
                "Run the {mm_model} encoder with data parallelism",
                "Shard images across TP ranks for the vision encoder instead of replicating it.",
                effect=True,
                files=(_MM,),
            ),
            S(
                "feat",
                "Support audio input for {mm_model}",
                "Adds audio inputs for {mm_model}.",
                files=(_MM,),
            ),
            S("fix", "Fix multimodal processor cache eviction", "The cache evicted items still in use."),
            S(
                "refactor",
                "Move media loading into `vllm/multimodal/media`",
                "Image, video and audio loaders move to one package.",
            ),
        ),
        (23, 38, 4, 13),
        test_rate=0.55,
        scope="multimodal",
    ),
    Area(
        "tool_parser",
        3.5,
        ("[Tool Parser]", "[Tool Parser]", "[Frontend]", "[Tool]", "[Reasoning]"),
        (
            _PARSER,
            "vllm/tool_parsers/__init__.py",
            "vllm/tool_parsers/abstract_tool_parser.py",
            "vllm/reasoning/deepseek_v3_reasoning_parser.py",
            "vllm/entrypoints/openai/chat_completion/serving.py",
        ),
        (_PARSER_TEST, "tests/tool_use/test_tool_calls.py"),
        (
            S(
                "fix",
                "Fix {parser} tool parser streaming when arguments contain braces",
                "Braces inside string arguments confused the {parser} streaming parser.",
                files=(_PARSER,),
                tests=(_PARSER_TEST,),
            ),
            S(
                "fix",
                "Fix {parser} tool parser dropping the last tool call",
                "When two tool calls arrived in one chunk, the second was lost.",
                files=(_PARSER,),
                tests=(_PARSER_TEST,),
            ),
            S(
                "feat",
                "Support parallel tool calls in the {parser} parser",
                "Adds parallel tool call support to the {parser} parser.",
                files=(_PARSER,),
                tests=(_PARSER_TEST,),
            ),
            S(
                "refactor",
                "Share JSON argument streaming between tool parsers",
                "Five parsers carried the same partial-JSON diffing code.",
            ),
        ),
        (25, 36, 7, 22),
        test_rate=0.55,
        scope="tool_parsers",
    ),
    Area(
        "structured",
        1.0,
        ("[Structured Output]", "[V1][Structured Output]", "[Frontend]"),
        (
            "vllm/v1/structured_output/__init__.py",
            "vllm/v1/structured_output/backend_xgrammar.py",
            "vllm/v1/structured_output/backend_guidance.py",
            "vllm/v1/structured_output/backend_outlines.py",
            "vllm/sampling_params.py",
        ),
        (
            "tests/v1/structured_output/test_utils.py",
            "tests/v1/entrypoints/llm/test_struct_output_generate.py",
        ),
        (
            S(
                "fix",
                "Fix grammar bitmask with speculative decoding",
                "The bitmask was applied to the draft positions in the wrong order.",
            ),
            S(
                "perf",
                "Compile grammars in a thread pool",
                "Grammar compilation blocked the scheduler for large JSON schemas.",
                effect=True,
            ),
            S(
                "feat",
                "Support `regex` in structural tags",
                "Allow regex constraints inside structural tags.",
            ),
        ),
        (25, 36),
        test_rate=0.6,
        scope="structured_output",
    ),
    Area(
        "cpu",
        3.0,
        ("[CPU]", "[CPU]", "[CPU Backend]", "[Hardware][CPU]"),
        (
            "vllm/platforms/cpu.py",
            "vllm/v1/worker/cpu_worker.py",
            "vllm/v1/worker/cpu_model_runner.py",
            "vllm/v1/attention/backends/cpu_attn.py",
            "csrc/cpu/cpu_attn.cpp",
            "csrc/cpu/cpu_attn_impl.hpp",
            "csrc/cpu/sgl-kernels/gemm.cpp",
            "csrc/cpu/sgl-kernels/moe.cpp",
            "csrc/cpu/utils.cpp",
            "csrc/cpu/torch_bindings.cpp",
            "cmake/cpu_extension.cmake",
            "vllm/model_executor/layers/fused_moe/cpu_fused_moe.py",
        ),
        ("tests/kernels/attention/test_cpu_attn.py", "tests/kernels/moe/test_cpu_fused_moe.py"),
        (
            S(
                "fix",
                "Fix CPU attention for head size {head}",
                "The CPU attention kernel only handled head sizes that are multiples of 32.",
            ),
            S(
                "perf",
                "Use AMX for {quant} GEMM on CPU",
                "Use AMX tiles for {quant} GEMMs on Sapphire Rapids.",
                effect=True,
            ),
            S("feat", "Support {model} on the CPU backend", "Makes {model} run on the CPU backend."),
            S(
                "fix",
                "Fix thread binding on machines with SMT disabled",
                "Auto thread binding assumed two hardware threads per core.",
                small=True,
            ),
            S(
                "ci",
                "Run the CPU tests on Arm runners too",
                "Adds Graviton runners to the CPU test job.",
                files=(".buildkite/scripts/hardware_ci/run-cpu-test.sh",),
            ),
        ),
        (6, 3, 28),
        test_rate=0.35,
        scope="cpu",
    ),
    Area(
        "xpu",
        2.0,
        ("[XPU]", "[XPU]", "[Hardware][Intel]"),
        (
            "vllm/platforms/xpu.py",
            "vllm/v1/worker/xpu_worker.py",
            "vllm/v1/worker/xpu_model_runner.py",
            "vllm/model_executor/layers/quantization/ipex_quant.py",
            "vllm/v1/attention/backends/xpu_attn.py",
        ),
        ("tests/v1/worker/test_xpu_worker.py",),
        (
            S(
                "fix",
                "Fix {model} on XPU",
                "{model} failed on XPU because of an unsupported dtype.",
                small=True,
            ),
            S("feat", "Enable FP8 KV cache on XPU", "Adds FP8 KV cache support on Intel GPUs."),
            S(
                "perf",
                "Use oneDNN for {quant} GEMM on XPU",
                "Switch {quant} GEMMs on XPU to oneDNN.",
                effect=True,
            ),
            S(
                "dep",
                "Bump the XPU torch to 2.11 and drop the IPEX pin",
                "Moves the XPU build to the upstream torch XPU wheels.",
                files=("requirements/xpu.txt", "docker/Dockerfile.xpu"),
            ),
        ),
        (26, 3),
        test_rate=0.25,
        scope="xpu",
    ),
    Area(
        "docs",
        5.0,
        ("[Doc]", "[Docs]", "[Doc]", "[Doc]", "[Examples]"),
        (
            "docs/models/supported_models.md",
            "docs/features/tool_calling.md",
            "docs/features/quantization/fp8.md",
            "docs/serving/parallelism_scaling.md",
            "docs/getting_started/installation/gpu.md",
            "docs/design/plugin_system.md",
            "docs/contributing/README.md",
            "README.md",
            "docs/features/spec_decode.md",
            "docs/features/disagg_prefill.md",
            "docs/usage/troubleshooting.md",
            "docs/configuration/optimization.md",
            "examples/offline_inference/basic/chat.py",
            "examples/online_serving/openai_chat_completion_client.py",
        ),
        (),
        (
            S(
                "doc",
                "Fix broken links in {doc}",
                "Several links in {doc} pointed at moved pages.",
                small=True,
            ),
            S("doc", "Document {feature}", "Adds a section on {feature}."),
            S(
                "doc",
                "Update the supported models table",
                "Adds recently supported models to the table.",
                files=("docs/models/supported_models.md",),
            ),
            S("doc", "Add an example for {feature}", "Adds a runnable example for {feature}."),
            S("doc", "Clarify the installation steps for {hw}", "The steps for {hw} were out of date."),
        ),
        (39, 8, 27, 53, 1),
        test_rate=0.0,
        scope="docs",
    ),
    Area(
        "misc",
        4.0,
        ("[Misc]", "[Misc]", "[Chore]", "[Refactor]", "[Misc]"),
        (
            "vllm/utils/__init__.py",
            "vllm/utils/torch_utils.py",
            "vllm/envs.py",
            "vllm/logger.py",
            "vllm/config/vllm.py",
            "vllm/config/model.py",
            "vllm/config/cache.py",
            "vllm/transformers_utils/config.py",
            "vllm/tokenizers/registry.py",
            "vllm/renderers/hf.py",
            "vllm/platforms/interface.py",
            "vllm/platforms/cuda.py",
        ),
        ("tests/utils_/test_utils.py", "tests/test_config.py", "tests/tokenizers_/test_registry.py"),
        (
            S("misc", "Remove unused imports and dead code in {pkg}", "Cleanup, no functional change."),
            S(
                "misc",
                "Improve the log message when {env} is set",
                "The old message did not say which value was picked up.",
                small=True,
            ),
            S(
                "refactor",
                "Move {helper} into `vllm.utils.{util_mod}`",
                "`vllm/utils/__init__.py` keeps growing; move {helper} into its own module.",
            ),
            S(
                "fix",
                "Fix `{env}` being parsed as a string",
                "`{env}=0` enabled the feature because the value was not converted to bool.",
                small=True,
            ),
            S("misc", "Add type hints to {pkg}", "Adds type hints so that {pkg} passes mypy."),
            S(
                "fix",
                "Fix {model} tokenizer loading with Transformers v5",
                "Transformers v5 changed the tokenizer class lookup.",
            ),
        ),
        (1, 13, 19, 24, 32, 40, 42, 54, 55, 58),
        test_rate=0.35,
        scope="misc",
    ),
    Area(
        "lora",
        1.0,
        ("[LoRA]", "[LoRA]", "[Core][LoRA]"),
        (
            "vllm/lora/layers/column_parallel_linear.py",
            "vllm/lora/model_manager.py",
            "vllm/lora/punica_wrapper/punica_gpu.py",
            "vllm/lora/ops/triton_ops/lora_shrink_op.py",
            "vllm/lora/ops/triton_ops/fused_moe_lora_op.py",
        ),
        ("tests/lora/test_layers.py", "tests/lora/test_lora_manager.py"),
        (
            S(
                "feat",
                "Support LoRA on MoE experts for {model}",
                "Enables LoRA on the expert layers of {model}.",
            ),
            S(
                "perf",
                "Tune LoRA shrink/expand kernels for small ranks",
                "Adds configs for rank 8 and 16.",
                effect=True,
            ),
            S("fix", "Fix LoRA with tied embeddings", "The LoRA embedding path ignored tied weights."),
        ),
        (34, 0),
        test_rate=0.6,
        scope="lora",
    ),
    Area(
        "bench",
        1.5,
        ("[Bench]", "[Benchmark]", "[Perf]", "[Bench]"),
        (
            "vllm/benchmarks/serve.py",
            "vllm/benchmarks/datasets.py",
            "vllm/benchmarks/throughput.py",
            "benchmarks/kernels/benchmark_moe.py",
            "benchmarks/kernels/benchmark_layernorm.py",
            "vllm/benchmarks/lib/endpoint_request_func.py",
        ),
        ("tests/benchmarks/test_serve_cli.py",),
        (
            S(
                "feat",
                "Add `--{cli}` to `vllm bench serve`",
                "Adds a `--{cli}` option to the serving benchmark.",
                small=True,
            ),
            S(
                "fix",
                "Fix goodput calculation with `--ramp-up-strategy`",
                "Goodput divided by the wrong duration when ramp-up was enabled.",
            ),
            S("feat", "Add a {dataset} dataset to the benchmarks", "Adds {dataset} prompts to `vllm bench`."),
        ),
        (45, 57, 46),
        test_rate=0.3,
        scope="benchmarks",
    ),
    Area(
        "sampling",
        1.5,
        ("[Sampler]", "[V1][Sampler]", "[Perf]", "[Core]"),
        (
            "vllm/v1/sample/sampler.py",
            "vllm/v1/sample/logits_processor/builtin.py",
            "vllm/v1/sample/ops/topk_topp_sampler.py",
            "vllm/v1/sample/ops/penalties.py",
            "vllm/sampling_params.py",
        ),
        ("tests/v1/sample/test_sampler.py", "tests/v1/sample/test_topk_topp_sampler.py"),
        (
            S(
                "perf",
                "Faster top-p sampling with a radix select kernel",
                "Replace the full sort in top-p sampling with a radix select.",
                effect=True,
            ),
            S(
                "fix",
                "Fix `min_tokens` with stop token ids",
                "`min_tokens` was ignored for stop token ids.",
                small=True,
            ),
            S(
                "feat",
                "Support per-request `logprobs_mode`",
                "Lets clients choose raw or processed logprobs.",
            ),
        ),
        (12, 50, 44),
        test_rate=0.65,
        scope="sampling",
    ),
    Area(
        "pooling",
        1.5,
        ("[Pooling]", "[Frontend][Pooling]", "[Model]"),
        (
            "vllm/model_executor/layers/pooler/seqwise.py",
            "vllm/model_executor/layers/pooler/tokwise.py",
            "vllm/entrypoints/pooling/embed/serving.py",
            "vllm/entrypoints/pooling/score/serving.py",
            "vllm/v1/pool/metadata.py",
        ),
        ("tests/models/language/pooling/test_embedding.py", "tests/entrypoints/pooling/embed/test_online.py"),
        (
            S("feat", "Support {model} as a reranker", "Adds a sequence classification head for {model}."),
            S(
                "fix",
                "Fix embedding normalization with chunked prefill",
                "Embeddings were normalised per chunk instead of per sequence.",
            ),
            S(
                "perf",
                "Batch pooling outputs on the GPU",
                "Move pooling post-processing onto the GPU.",
                effect=True,
            ),
        ),
        (59, 37, 23),
        test_rate=0.6,
        scope="pooling",
    ),
    Area(
        "metrics",
        1.5,
        ("[Metrics]", "[Observability]", "[V1][Metrics]", "[Misc]"),
        (
            "vllm/v1/metrics/loggers.py",
            "vllm/v1/metrics/stats.py",
            "vllm/v1/metrics/prometheus.py",
            "vllm/tracing/otel.py",
            "vllm/v1/metrics/perf.py",
        ),
        ("tests/v1/metrics/test_metrics_reader.py", "tests/entrypoints/openai/test_metrics.py"),
        (
            S(
                "feat",
                "Add a `{metric}` Prometheus metric",
                "Exposes `{metric}`, which operators asked for.",
                small=True,
            ),
            S(
                "fix",
                "Fix the prefix cache hit rate metric with KV offloading",
                "Blocks loaded from the offload tier were counted as misses.",
            ),
            S(
                "misc",
                "Deprecate `{metric}` in favour of `{metric}_total`",
                "Follows the Prometheus naming convention; the old name stays for one release.",
            ),
        ),
        (49, 46, 40),
        test_rate=0.5,
        scope="metrics",
    ),
    Area(
        "rust",
        0.7,
        ("[Rust Frontend]", "[Rust Frontend]"),
        ("rust/src/server.rs", "rust/src/tokenizer.rs", "rust/src/router.rs", "rust/Cargo.toml"),
        ("rust/tests/test_server.rs",),
        (
            S(
                "feat",
                "Support streaming chat completions in the Rust frontend",
                "Adds SSE streaming for chat completions to the Rust frontend.",
            ),
            S(
                "fix",
                "Fix detokenization of multi-byte characters in the Rust frontend",
                "Partial UTF-8 sequences were emitted as replacement characters.",
            ),
        ),
        (58, 25),
        test_rate=0.5,
        scope="rust",
    ),
)

# Slot vocabularies for the remaining placeholders.
TESTS = (
    "entrypoints",
    "kernels-moe",
    "distributed",
    "spec-decode e2e",
    "lora",
    "multimodal models",
    "quantization",
    "v1 engine",
    "tool use",
    "compile",
)
PKGS = (
    "vllm/v1/worker",
    "vllm/entrypoints",
    "vllm/model_executor/layers",
    "vllm/config",
    "vllm/multimodal",
    "vllm/distributed",
    "vllm/lora",
)
FIELDS = (
    "previous_response_id",
    "max_tool_calls",
    "reasoning.summary",
    "include",
    "prompt_cache_key",
    "parallel_tool_calls",
    "truncation",
)
CLI_OPTIONS = (
    "api-key-file",
    "max-log-len",
    "uds-path",
    "tokens-only",
    "enable-log-outputs",
    "ssl-ciphers",
    "served-model-name-alias",
    "request-timeout",
)
FEATURES = (
    "prefix caching",
    "LoRA",
    "structured outputs",
    "pooling models",
    "CPU offloading",
    "FP8 KV cache",
    "sleep mode",
    "logprobs",
    "encoder-decoder models",
    "pipeline parallelism",
)
DOCS = (
    "the quantization guide",
    "the disaggregated prefill page",
    "the parallelism guide",
    "the CPU installation page",
    "the tool calling page",
    "the metrics page",
)
HELPERS = (
    "`cdiv`",
    "`get_open_port`",
    "`make_tensor_with_pad`",
    "`random_uuid`",
    "`is_pin_memory_available`",
)
UTIL_MODS = ("math_utils", "network_utils", "torch_utils", "mem_utils", "async_utils")
METRICS = (
    "vllm:kv_offload_bytes",
    "vllm:request_queue_time_seconds",
    "vllm:spec_decode_draft_acceptance_length",
    "vllm:engine_sleep_state",
    "vllm:num_preemptions",
)
DATASETS = ("SPEED-Bench", "MMVU", "BurstGPT", "ShareGPT4V", "prefix-repetition")

# More subjects for the busiest areas, so a week of ~200 PRs rarely repeats a title.
_EXTRA: dict[str, tuple[Subject, ...]] = {
    "rocm": (
        S(
            "fix",
            "Fix {model} accuracy with AITER RMSNorm on {amd}",
            "GSM8K dropped by 4 points on {amd} because the AITER RMSNorm kernel was used for a "
            "non-contiguous input.",
        ),
        S(
            "feat",
            "Fall back to Triton attention for unsupported head sizes on ROCm",
            "Fall back to the Triton backend when AITER does not support the head size.",
        ),
        S(
            "perf",
            "Tune Triton MoE configs for {model} on {amd}",
            "Adds tuned MoE configs for {amd}.",
            effect=True,
        ),
        S(
            "fix",
            "Fix hipGraph capture with custom all-reduce on {amd}",
            "Graph capture hung at TP{tp} because the custom all-reduce buffer was registered twice.",
        ),
        S(
            "feat",
            "Support {kvdtype} KV cache on {amd}",
            "Adds a {kvdtype} KV cache path for ROCm attention.",
        ),
        S(
            "ci",
            "Move the AMD {test} tests to the MI325 runners",
            "The MI300 pool is saturated; run these tests on MI325 instead.",
            files=(".buildkite/test_areas/amd.yaml",),
            small=True,
        ),
        S(
            "refactor",
            "Use the platform interface instead of `is_rocm()` checks in {pkg}",
            "Replaces scattered `current_platform.is_rocm()` checks with platform methods.",
        ),
    ),
    "ci": (
        S("ci", "Add a nightly {test} job on {nv}", "Runs the {test} tests nightly on {nv} runners."),
        S("ci", "Cache the CUDA build between pipeline steps", "Saves about 12 minutes per pipeline run."),
        S(
            "ci",
            "Retry HF Hub downloads in tests",
            "Transient 5xx from the Hub made tests flaky.",
            files=("tests/utils.py", "tests/conftest.py"),
            small=True,
        ),
        S(
            "ci",
            "Fix the wheel size check for the {gpus}-arch build",
            "The size limit did not account for SM120.",
        ),
        S(
            "ci",
            "Label PRs touching {pkg} automatically",
            "Adds a Mergify rule for {pkg}.",
            files=(".github/mergify.yml",),
            small=True,
        ),
        S("ci", "Run the {test} tests on {gpus} GPUs", "These tests need more memory than one L4 has."),
        S("ci", "Remove the obsolete {test} job", "The job duplicates coverage of the new test areas."),
    ),
    "models": (
        S(
            "feat",
            "Support {model} with data parallel attention",
            "Enables DP attention for {model} so that the KV cache is not replicated.",
            files=(_M,),
        ),
        S(
            "fix",
            "Fix {model} with chunked prefill and sliding window",
            "The window start was wrong after a chunk.",
            files=(_M,),
        ),
        S(
            "perf",
            "Fuse the QKV projection of {model}",
            "Use a single fused QKV projection for {model}.",
            effect=True,
            files=(_M,),
        ),
        S(
            "fix",
            "Fix {model} config when `head_dim` is missing",
            "Derive `head_dim` from the hidden size.",
            files=(_M,),
            small=True,
        ),
        S(
            "feat",
            "Support {model} in the Transformers backend",
            "Lets {model} run through the Transformers modelling backend.",
            files=("vllm/model_executor/models/transformers/base.py",),
        ),
        S(
            "refactor",
            "Use `maybe_prefix` in {model}",
            "Consistent parameter prefixes in {model}.",
            files=(_M,),
            small=True,
        ),
    ),
    "frontend": (
        S(
            "remove",
            "Remove the deprecated `--{cli}` option",
            "`--{cli}` was deprecated two releases ago; this removes the CLI flag.",
            files=("vllm/engine/arg_utils.py",),
            small=True,
        ),
        S("feat", "Support `{field}` in chat completions", "Adds `{field}` to `/v1/chat/completions`."),
        S("fix", "Fix `n>1` with `{field}` in the Responses API", "Only the first choice carried `{field}`."),
        S("fix", "Fix the CORS preflight for `/v1/{endpoint}`", "OPTIONS requests returned 405."),
        S("feat", "Add `vllm {subcommand}` CLI subcommand", "Adds a `vllm {subcommand}` subcommand."),
        S("perf", "Use orjson for streaming responses", "Serialise SSE chunks with orjson.", effect=True),
        S(
            "misc",
            "Warn when `--{cli}` is used with `--api-server-count` > 1",
            "The option has no effect with several API servers.",
            small=True,
        ),
    ),
    "moe": (
        S(
            "fix",
            "Fix {model} MoE with EPLB and {quant}",
            "Expert weights were rebalanced before quantization.",
        ),
        S(
            "perf",
            "Use DeepGEMM for {quant} MoE on {nv}",
            "Routes {quant} MoE through DeepGEMM.",
            effect=True,
        ),
        S("feat", "Support {quant} MoE with LoRA", "LoRA adapters on {quant} MoE experts."),
        S(
            "refactor",
            "Remove the legacy `fused_experts` entry point for {quant}",
            "All callers use the modular kernel now.",
        ),
    ),
    "misc": (
        S("misc", "Fix typos in {pkg}", "Typo fixes.", small=True),
        S(
            "remove",
            "Remove the deprecated `{env}` environment variable",
            "`{env}` has been deprecated for two releases. Breaking: setting it now has no effect.",
            files=("vllm/envs.py",),
            small=True,
        ),
        S("refactor", "Split `vllm/config/{cfg}.py` into smaller modules", "The file is over 1,500 lines."),
        S(
            "fix",
            "Fix a deadlock in the logger when {env} is set",
            "The custom handler re-entered the logging lock.",
        ),
        S("misc", "Reduce startup log noise", "Move eleven INFO lines to DEBUG.", small=True),
        S(
            "fix",
            "Fix `vllm --version` when installed from a wheel",
            "The version came from git.",
            small=True,
        ),
        S("refactor", "Remove the `{env}` fallback from `vllm/envs.py`", "The fallback is no longer needed."),
    ),
    "docs": (
        S(
            "doc",
            "Add {mm_model} to the multimodal models table",
            "Lists {mm_model}.",
            files=("docs/models/supported_models.md",),
        ),
        S(
            "doc",
            "Explain `{env}` in the environment variables page",
            "Documents `{env}`.",
            files=("docs/configuration/env_vars.md",),
        ),
        S("doc", "Add a troubleshooting entry for {feature} on {hw}", "Common failure and its fix."),
        S(
            "doc",
            "Update the {model} recipe",
            "The recommended flags changed.",
            files=("docs/models/recipes.md",),
        ),
        S(
            "doc",
            "Fix the {parser} tool calling example",
            "The example used the wrong parser name.",
            files=("docs/features/tool_calling.md",),
        ),
    ),
    "kv": (
        S(
            "fix",
            "Fix {connector} handshake timeout with many remote engines",
            "The handshake used one thread per remote engine.",
            files=(_CONN,),
        ),
        S(
            "feat",
            "Support {kvdtype} KV cache in {connector}",
            "Transfers {kvdtype} KV blocks with their scales.",
            files=(_CONN,),
        ),
        S(
            "misc",
            "Log transfer failures in {connector} at WARNING",
            "Failures were logged at DEBUG.",
            files=(_CONN,),
            small=True,
        ),
    ),
    "spec": (
        S(
            "fix",
            "Fix EAGLE with {backend} and CUDA graphs",
            "The draft model captured the wrong batch sizes.",
        ),
        S("perf", "Skip the draft model when acceptance stays low", "Adaptive drafting.", effect=True),
        S("feat", "Support `num_speculative_tokens` per request", "Lets clients choose the draft length."),
    ),
    "quantization": (
        S("fix", "Fix {quant} checkpoint loading for {model}", "The scale names did not match the modules."),
        S("feat", "Online {quant} quantization for MoE layers", "Quantize MoE weights at load time."),
        S(
            "perf",
            "Use FlashInfer for {quant} GEMM on {nv}",
            "FlashInfer's kernel is faster at small M.",
            effect=True,
        ),
    ),
    "multimodal": (
        S(
            "fix",
            "Fix {mm_model} image processor with `max_pixels`",
            "`max_pixels` was ignored.",
            files=(_MM,),
        ),
        S(
            "feat",
            "Support embeddings as input for {mm_model}",
            "Accept precomputed image embeddings.",
            files=(_MM,),
        ),
    ),
    "tool_parser": (
        S(
            "feat",
            "Add a {parser} reasoning parser",
            "Splits reasoning from content for {parser} models.",
            files=("vllm/reasoning/__init__.py",),
        ),
        S(
            "fix",
            "Fix {parser} tool parser with `tool_choice=required`",
            "Forced tool calls were returned as content.",
            files=(_PARSER,),
            tests=(_PARSER_TEST,),
        ),
    ),
    "compile": (
        S("fix", "Fix {op} fusion pattern for {quant}", "The pattern did not match after the last refactor."),
        S(
            "perf",
            "Reduce compile time by caching Inductor graphs per shape bucket",
            "Cold start compile time drops by a third.",
            effect=True,
        ),
    ),
}
AREAS = tuple(
    Area(
        a.name,
        a.weight,
        a.tags,
        a.src,
        a.tests,
        a.subjects + _EXTRA.get(a.name, ()),
        a.people,
        a.test_rate,
        a.series,
        a.scope,
        a.extra,
    )
    for a in AREAS
)
KV_DTYPES = ("FP8", "FP8 e5m2", "INT8", "NVFP4")
ENDPOINTS = ("responses", "chat/completions", "embeddings", "score", "tokenize", "audio/transcriptions")
SUBCOMMANDS = ("bench sweep", "collect-env", "run-batch --dry-run", "serve --headless")
CONFIGS = ("model", "parallel", "compilation", "cache", "scheduler")
