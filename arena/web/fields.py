"""What a request's JSON may hold, checked before anything is done with it: the refusal a
request gets (:class:`RequestError`, with its HTTP status), each field's kind, the picture the
page asks for, and how deeply the body may nest.

Kept apart from the games and the connections so that every layer that refuses a request (a
game's seat, the lobby, the handler) refuses it the same way, without importing the others.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

MAX_DEPTH = 8  # nesting of a request's JSON: {"options": {...}} is 2
MIN_PICTURE, MAX_PICTURE = 320, 2400  # the widths of table picture a page may ask for


class RequestError(ValueError):
    """A request the server refuses, with the HTTP status to answer."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


def field_of(request: dict[str, Any], key: str, kind: type, default: Any = ...) -> Any:
    """``request[key]`` checked to be a ``kind`` (``None`` is accepted where the default is)."""
    if key not in request:
        if default is ...:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the request has no {key!r}")
        return default
    value = request[key]
    if value is None and default is None:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise RequestError(HTTPStatus.BAD_REQUEST, f"{key!r} must be a {kind.__name__}, got {value!r}")
    return value


def look_of(request: dict[str, Any]) -> dict[str, Any]:
    """How the request's page wants the table drawn: ``numerals`` instead of pips, and the
    picture's ``width`` (a phone asks for a narrow one)."""
    numerals = field_of(request, "numerals", bool, default=False)
    width = field_of(request, "width", int, default=None)
    if width is not None and not MIN_PICTURE <= width <= MAX_PICTURE:
        raise RequestError(HTTPStatus.BAD_REQUEST, f"width must be {MIN_PICTURE}..{MAX_PICTURE} pixels or null")
    return {"numerals": numerals, "width": width}


def nesting(value: Any) -> int:
    """How deeply JSON containers nest in ``value`` (0 for a number or string), counted without
    recursion and stopping once past :data:`MAX_DEPTH`."""
    deepest, todo = 0, [(value, 1)]
    while todo and deepest <= MAX_DEPTH:
        item, depth = todo.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            todo.extend((child, depth + 1) for child in children)
    return deepest


def refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON has")
