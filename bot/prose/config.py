"""The language-model settings as the prose writer uses them (``PRDIGEST_LLM_*``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.config.read_settings import ReadSettings
    from bot.config.settings import Settings

MAX_REQUESTS = 15  # requests to the model per digest, retries included
PARALLEL = 4  # requests in flight at once


@dataclass(frozen=True)
class ProseConfig:
    """Where the model is and how long a digest may wait for it. ``key`` is never shown."""

    url: str
    model: str
    key: str = field(default="", repr=False)
    timeout: float = 20.0
    max_requests: int = MAX_REQUESTS
    parallel: int = PARALLEL

    @property
    def endpoint(self) -> str:
        return f"{self.url}/chat/completions"


def prose_config(settings: Settings | ReadSettings) -> ProseConfig | None:
    """The configured model, or None when ``PRDIGEST_LLM_URL`` is not set (prose stays off)."""
    url, model = settings.prdigest_llm_url, settings.prdigest_llm_model
    if not url or not model:
        return None
    raw = settings.prdigest_llm_key
    key = raw if isinstance(raw, str) or raw is None else raw.get_secret_value()
    return ProseConfig(
        url=url, model=model.strip(), key=(key or "").strip(), timeout=settings.prdigest_llm_timeout
    )
