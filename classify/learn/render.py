"""A learned profile as TOML a team can read and edit: tables in order, each after its comments.

Only what profiles hold is written (strings, numbers, booleans, arrays of strings, tables), so a
small writer is enough and the output reads like the bundled profiles: one key per line, long
arrays wrapped, regexes as literal strings. ``tomllib`` reads back exactly the data written
(``tests/classify/test_learn.py`` checks it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

WIDTH = 110
Comments = Mapping[tuple[str, ...], Sequence[str]]


def _string(text: str) -> str:
    """A TOML string: literal ('…') for regexes and paths with backslashes, else basic ("…")."""
    if "\\" in text and "'" not in text and "\n" not in text:
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)


def _value(value: Any, indent: int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return _array([_value(v, indent) for v in value], indent)
    raise TypeError(f"cannot write {type(value).__name__} as a profile value")


def _array(items: list[str], indent: int) -> str:
    one_line = "[" + ", ".join(items) + "]"
    if indent + len(one_line) <= WIDTH:
        return one_line
    lines: list[str] = []
    current = "["
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "]")
        if len(current) > 1 and indent + len(current) + 1 + len(piece) > WIDTH:
            lines.append(current.rstrip())
            current = " " * (indent + 1) + piece
        else:
            current += ("" if current.endswith("[") else " ") + piece
    lines.append(current)
    return "\n".join(lines)


def _key(key: str) -> str:
    if key and all(c.isalnum() or c in "-_" for c in key) and key.isascii():
        return key
    return json.dumps(key, ensure_ascii=False)


def _comment(lines: Sequence[str]) -> list[str]:
    return [("# " + line).rstrip() for line in lines]


def render(data: Mapping[str, Any], comments: Comments = {}) -> str:  # noqa: B006 - never mutated
    """``data`` as TOML; ``comments[path]`` is written before the table at ``path`` (``()``: the
    file's head, before its top-level keys)."""
    out = _comment(comments.get((), []))
    if out:
        out.append("")
    _table(out, (), data, comments)
    return "\n".join(out).rstrip() + "\n"


def _table(out: list[str], path: tuple[str, ...], data: Mapping[str, Any], comments: Comments) -> None:
    plain = [(k, v) for k, v in data.items() if not isinstance(v, Mapping)]
    tables = [(k, v) for k, v in data.items() if isinstance(v, Mapping)]
    for key, value in plain:
        prefix = f"{_key(key)} = "
        out.append(prefix + _value(value, len(prefix)))
    for key, value in tables:
        sub = (*path, key)
        has_plain = any(not isinstance(v, Mapping) for v in value.values())
        note = comments.get(sub, [])
        if has_plain or note or not value:
            if out and out[-1] != "":
                out.append("")
            out += _comment(note)
            out.append("[" + ".".join(_key(k) for k in sub) + "]")
        _table(out, sub, value, comments)
