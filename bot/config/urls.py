"""The one rule for every URL a token is sent to: encrypted, or this machine.

A platform URL setting (``PRDIGEST_GITHUB_API_URL``, ``PRDIGEST_SLACK_API_URL``, and Discord's
REST and gateway URLs) carries a token with every request. ``platform_url`` accepts the secure
scheme (``https``, ``wss``) for any host and the plain one (``http``, ``ws``) only for a loopback
host (``localhost``, ``127.0.0.0/8``, ``::1``: test fakes and local proxies), so a typo or a
copied example can never send a token across a network in clear. It is a pure check — it never
resolves a name or opens a connection — and runs when settings are read, before any client exists.
"""

from __future__ import annotations

from urllib.parse import urlsplit

HTTP = ("https", "http")  # (secure, plain-on-loopback)
WEBSOCKET = ("wss", "ws")


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (``127.0.0.0/8``, ``::1``); no name is resolved."""
    import ipaddress  # only for a plain URL's host: the secure defaults never need it

    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def platform_url(setting: str, value: str, schemes: tuple[str, str] = HTTP) -> str:
    """``value`` stripped, if it is a ``secure://`` URL, or a ``plain://`` URL to a loopback host.

    Raises ``ValueError`` naming ``setting`` and what to use instead (``load_settings`` turns it
    into one line).
    """
    secure, plain = schemes
    raw = value.strip()
    try:
        parts = urlsplit(raw)
        host = parts.hostname or ""
    except ValueError:  # e.g. an unbalanced [ in the host
        parts, host = None, ""
    if parts is None or parts.scheme not in schemes or not host:
        raise ValueError(f"{setting} {value!r} is not a {secure}:// URL")
    if parts.scheme == plain and not is_loopback(host):
        raise ValueError(
            f"{setting} {value!r}: plain {plain}:// is allowed only to this machine (localhost); "
            f"use {secure}:// — the token must not travel in clear"
        )
    return raw
