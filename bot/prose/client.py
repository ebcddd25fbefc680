"""One request to an OpenAI-compatible ``/chat/completions`` endpoint (httpx).

The request asks for structured output: ``response_format`` of type ``json_schema`` with the
answer's schema (``commands.prose.prompt.ANSWER_SCHEMA``), which vLLM, OpenAI and most
compatible servers honour. A server that refuses the field (HTTP 400/422 naming
``response_format`` or ``json_schema``) is asked again without it — the prompt itself asks for
plain JSON — and the client remembers that for its later requests.

Failures come back as ``ModelError`` with a short reason the digest's JSON reports:
``rate_limited`` (429, with the Retry-After wait when given), ``unavailable`` (5xx, a dropped
connection, an answer that is not a chat completion), ``timeout`` and ``error`` (any other
refusal). The key goes in the ``Authorization`` header only and is never logged; error texts
carry the status and the server's own short message, never the request.
"""

from __future__ import annotations

from typing import Any

import httpx

from bot.config.retry_after import retry_after
from bot.prose.config import ProseConfig
from commands.prose.prompt import ANSWER_SCHEMA, SCHEMA_NAME

MAX_TOKENS = 1500
_SCHEMA_WORDS = ("response_format", "json_schema", "structured output", "guided")


class ModelError(Exception):
    """The model gave no usable answer; ``reason`` is one of the module docstring's words."""

    def __init__(self, reason: str, detail: str = "", *, wait: float | None = None) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.wait = wait


class SchemaRefused(Exception):
    """The server does not take ``response_format``; ask again without it."""


def request_body(config: ProseConfig, messages: list[dict[str, str]], *, structured: bool) -> dict[str, Any]:
    """The JSON of a chat-completions request, as the OpenAI API documents it."""
    body: dict[str, Any] = {
        "model": config.model,
        "messages": messages,
        "temperature": 0,
        "max_tokens": MAX_TOKENS,
    }
    if structured:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": ANSWER_SCHEMA},
        }
    return body


def _server_message(response: httpx.Response) -> str:
    try:
        error = response.json().get("error")
    except ValueError:
        return response.text[:200]
    if isinstance(error, dict):
        return str(error.get("message", ""))[:200]
    return str(error or "")[:200]


def _content(response: httpx.Response) -> str:
    """The answer's text: ``choices[0].message.content``."""
    try:
        data = response.json()
        message = data["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ModelError("unavailable", "the answer is not a chat completion") from None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        refusal = message.get("refusal") if isinstance(message, dict) else None
        raise ModelError("error", f"no content ({str(refusal)[:120]})" if refusal else "no content")
    return content


class ChatClient:
    """The endpoint of ``config``, over one ``httpx.AsyncClient`` (closed by ``aclose``)."""

    def __init__(self, config: ProseConfig, *, structured: bool = True) -> None:
        self.config = config
        self.structured = structured
        headers = {"Content-Type": "application/json"}
        if config.key:
            headers["Authorization"] = f"Bearer {config.key}"
        self._http = httpx.AsyncClient(headers=headers, follow_redirects=False)

    async def complete(self, messages: list[dict[str, str]], *, timeout: float) -> str:
        """One request; the answer's text, or ``ModelError`` / ``SchemaRefused``."""
        body = request_body(self.config, messages, structured=self.structured)
        try:
            response = await self._http.post(self.config.endpoint, json=body, timeout=timeout)
        except httpx.TimeoutException:
            raise ModelError("timeout", f"no answer within {timeout:.1f} s") from None
        except httpx.HTTPError as exc:
            raise ModelError("unavailable", type(exc).__name__) from None
        status = response.status_code
        if status == 200:
            return _content(response)
        message = _server_message(response)
        if status in (400, 422) and self.structured and any(w in message.lower() for w in _SCHEMA_WORDS):
            self.structured = False
            raise SchemaRefused(message)
        if status == 429:
            wait = retry_after(response.headers.get("retry-after"))
            raise ModelError("rate_limited", f"HTTP 429 {message}".strip(), wait=wait)
        if status >= 500:
            raise ModelError("unavailable", f"HTTP {status} {message}".strip())
        raise ModelError("error", f"HTTP {status} {message}".strip())

    async def aclose(self) -> None:
        await self._http.aclose()
