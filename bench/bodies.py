"""PR descriptions the way vLLM contributors actually leave them.

Most follow vLLM's PR template (Purpose / Test Plan / Test Result, the essential-elements
checklist inside ``<details>``, the "BEFORE SUBMITTING" footer and HTML comments), some keep the
template's placeholder text, some are free-form or a ``## Summary`` list, a few are nearly empty.
Squash merges append ``Signed-off-by:`` lines. All of this is what a gist extractor has to cut
through, so the demo exercises it.
"""

from __future__ import annotations

import random

CHECKLIST = (
    '- [{a}] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".\n'
    "- [{b}] The test plan, such as providing test command.\n"
    "- [{c}] The test results, such as pasting the results comparison before and after, or e2e results\n"
    "- [{d}] (Optional) The necessary documentation update, such as updating `supported_models.md` and "
    "`examples` for a new model.\n"
    "- [{e}] (Optional) Release notes update. If your change is user facing, please update the release notes "
    "draft in the [Google "
    "Doc](https://docs.google.com/document/d/1YyVqrgX4gHTtrstbq8oWUImOyPCKSGnJ7xtTpmXzlRs/"
    "edit?tab=t.0)."
)
FOOTER = (
    "**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing>** "
    "(anything written below this line will be removed by GitHub Actions)"
)
PLACEHOLDER = "PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING THE FORMAT IS AS FOLLOWS:"


def pytest_summary(rng: random.Random) -> str:
    passed = rng.randint(3, 180)
    skipped = rng.choice((0, 0, 1, 2, 4))
    secs = rng.randint(80, 9000) / 10
    extra = f", {skipped} skipped" if skipped else ""
    warn = rng.choice(("", "", f", {rng.randint(1, 30)} warnings"))
    return f"```\n======= {passed} passed{extra}{warn} in {secs:.2f}s =======\n```"


def gsm8k_table(rng: random.Random) -> str:
    a = rng.randint(7800, 9600) / 10000
    b = a - rng.randint(0, 80) / 10000
    return (
        "|Tasks|Version|     Filter     |n-shot|  Metric   |   |Value |   |Stderr|\n"
        "|-----|------:|----------------|-----:|-----------|---|-----:|---|-----:|\n"
        f"|gsm8k|      3|flexible-extract|     5|exact_match|↑  |{a:.4f}|±  |0.0{rng.randint(60, 80)}|\n"
        f"|     |       |strict-match    |     5|exact_match|↑  |{b:.4f}|±  |0.0{rng.randint(60, 80)}|"
    )


def bench_table(rng: random.Random, before: float, after: float) -> str:
    ttft_b = rng.randint(80, 900)
    ttft_a = max(20, ttft_b - rng.randint(0, ttft_b // 3))
    return (
        "```\n============ Serving Benchmark Result ============\n"
        f"Successful requests:                     {rng.choice((200, 500, 1000))}\n"
        f"Output token throughput (tok/s):         {before:.2f}  ->  {after:.2f}\n"
        f"Mean TTFT (ms):                          {ttft_b}.{rng.randint(10, 99)}  ->  "
        f"{ttft_a}.{rng.randint(10, 99)}\n"
        f"Mean TPOT (ms):                          {rng.randint(8, 60)}.{rng.randint(10, 99)}\n"
        "==================================================\n```"
    )


def signoffs(people: list[tuple[str, str]]) -> str:
    return "\n".join(f"Signed-off-by: {name} <{login}@users.noreply.github.com>" for login, name in people)


def compose(
    rng: random.Random,
    *,
    purpose: str,
    plan: str,
    result: str,
    refs: str,
    people: list[tuple[str, str]],
    with_docs: bool,
    full: bool = False,
) -> str:
    """One PR description in one of the styles seen on vLLM's main branch.

    ``full`` restricts the choice to the complete template styles, for PRs whose results matter.
    """
    weights = (75, 25, 0, 0, 0) if full else (58, 17, 13, 7, 5)
    style = rng.choices(("template", "placeholder", "free", "summary", "empty"), weights=weights)[0]
    sign = signoffs(people) if rng.random() < 0.8 else ""
    if style == "empty":
        body = (
            f"<!-- markdownlint-disable -->\n{PLACEHOLDER}\n\n## Purpose\n{purpose}\n\n## Test Plan\n\n"
            "## Test Result\n\n## (Optional) Documentation Update\n\n---\n<details>\n<summary> Essential "
            "Elements of an Effective PR Description Checklist </summary>\n\n"
            + CHECKLIST.format(a=" ", b=" ", c=" ", d=" ", e=" ")
            + f"\n</details>\n\n{FOOTER}"
        )
        return body + (f"\n\n{sign}" if sign else "")
    if style == "free":
        parts = [purpose]
        if refs:
            parts.append(refs)
        if plan and rng.random() < 0.5:
            parts.append(f"Tested with:\n```\n{plan}\n```")
        if sign:
            parts.append(sign)
        return "\n\n".join(parts)
    if style == "summary":
        first, _, rest = purpose.partition(". ")
        bullets = [f"- {first.rstrip('.')}"] + ([f"- {rest.rstrip('.')}"] if rest else [])
        tests = f"- [x] `{plan.splitlines()[0]}`" if plan else "- [x] CI"
        body = (
            "## Summary\n"
            + "\n".join(bullets)
            + (f"\n\n{refs}" if refs else "")
            + f"\n\n## Test plan\n{tests}"
        )
        return body + (f"\n\n{sign}" if sign else "")
    head = "<!-- markdownlint-disable -->\n"
    if style == "placeholder":
        head += f"{PLACEHOLDER}\n\n"
    elif rng.random() < 0.3:
        head += "\n"
    hint = (
        "<!-- Describe what this PR changes and why. -->\n"
        if style == "placeholder" and rng.random() < 0.6
        else ""
    )
    checks = CHECKLIST.format(
        a="x",
        b="x" if plan else " ",
        c="x" if result else " ",
        d="x" if with_docs else " ",
        e="x" if rng.random() < 0.1 else " ",
    )
    plan_txt = (
        f"```\n{plan}\n```"
        if plan and "\n" not in plan and plan.startswith(("pytest", "vllm", "python"))
        else plan
    )
    body = (
        f"{head}## Purpose\n{hint}{purpose}\n"
        + (f"\n{refs}\n" if refs else "")
        + f"\n## Test Plan\n\n{plan_txt}\n\n## Test Result\n\n{result}\n"
    )
    if with_docs and rng.random() < 0.5:
        body += "\n## (Optional) Documentation Update\n\nUpdated the docs accordingly.\n"
    body += (
        "\n---\n<details>\n<summary> Essential Elements of an Effective PR Description Checklist "
        "</summary>\n\n"
        f"{checks}\n</details>\n\n{FOOTER}"
    )
    return body + (f"\n\n{sign}" if sign else "")
