"""The sentence cache's key: what a part's stored sentences depend on, hashed.

An entry is right for exactly the facts it was written from, by that model, for that prompt, and
judged by those checks: all four are in the key, so a changed part, another model, new wording
or a stricter (or fairer) verifier each ask the model again, and nothing ever invalidates an entry.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from commands.prose.prompt import PROMPT_VERSION
from commands.prose.verify import CHECKS_VERSION


def cache_key(facts: dict[str, Any], model: str, kind: str) -> str:
    """A hash of the part's facts, the model, the prompt version and the checks' version."""
    blob = json.dumps(
        {"prompt": PROMPT_VERSION, "checks": CHECKS_VERSION, "model": model, "kind": kind, "facts": facts},
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()
