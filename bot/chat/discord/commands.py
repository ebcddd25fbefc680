"""The application commands, generated from the command registry's parameter declarations.

One slash command per registered command, its options from ``commands.params.option_spec``:
fixed ``choices`` where the registry has them (the risk kind), ``autocomplete`` where it suggests
values (the period: ``week``, ``last-week``, recent ISO weeks — fixed choices would refuse
``2026-W19`` or a date range; the modules, comma-separated for several), an integer for the PR
number, the boolean ``public``. Discord wants required options first and descriptions of at most
100 characters; Chinese descriptions go in ``description_localizations``.
"""

from __future__ import annotations

from typing import Any

from commands.locale import t
from commands.params import MAX_PR_NUMBER, OptionSpec, for_surface, option_spec
from commands.registry import REGISTRY, CommandSpec, load_all

OPTION_TYPES = {"string": 3, "integer": 4, "boolean": 5}
MAX_DESCRIPTION = 100
LOCALES = {"zh": ("zh-CN",)}
MANAGE_GUILD = 1 << 5  # Discord's Manage Server permission bit


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1].rstrip() + "…"


def _described(key: str) -> dict[str, Any]:
    out: dict[str, Any] = {"description": _short(t("en", key))}
    localized = {loc: _short(t(lang, key)) for lang, locs in LOCALES.items() for loc in locs}
    if localized:
        out["description_localizations"] = localized
    return out


def option_payload(spec: OptionSpec, help_key: str) -> dict[str, Any]:
    out: dict[str, Any] = {"type": OPTION_TYPES[spec.type], "name": spec.name, **_described(help_key)}
    out["required"] = spec.required
    if spec.choices:
        out["choices"] = [{"name": c, "value": c} for c in spec.choices]
    if spec.autocomplete:
        out["autocomplete"] = True
    if spec.type == "integer":
        out["min_value"], out["max_value"] = 1, MAX_PR_NUMBER
    return out


def command_payload(spec: CommandSpec) -> dict[str, Any]:
    params = for_surface(spec.params, "discord")
    options = [option_payload(option_spec(p, t("en", p.help)), p.help) for p in params]
    options.sort(key=lambda o: not o["required"])  # Discord: required options come first
    out: dict[str, Any] = {
        "type": 1,
        "name": spec.name,
        **_described(spec.summary),
        "options": options,
        "dm_permission": True,
    }
    if spec.admin_only:  # a hint for Discord's menu only; the check is at run time (bot.chat.discord.app)
        out["default_member_permissions"] = str(MANAGE_GUILD)
        out["dm_permission"] = False
    return out


def commands_payload() -> list[dict[str, Any]]:
    """What ``prdigest discord sync-commands`` registers (a bulk overwrite)."""
    load_all()
    return [command_payload(spec) for spec in REGISTRY.values()]
