from __future__ import annotations

import pytest

from classify.rules import Profile, load_profile


@pytest.fixture(scope="session")
def vllm() -> Profile:
    return load_profile("vllm")


@pytest.fixture(scope="session")
def generic() -> Profile:
    return load_profile("generic")
