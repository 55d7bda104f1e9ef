"""Types for free-form JSON (server answers, persisted records, report documents) and their narrowing.

Where a document's shape is known and read field by field, it has a ``TypedDict`` beside its
producer (the bench report in :mod:`coder.bench.schema`). Everything else that is only built,
stored, forwarded or probed uses these aliases, so no ``Any`` leaks through a public signature:

- :data:`JSONValue` is what :func:`json.dumps` accepts and :func:`json.loads` returns. Its
  containers are ``Sequence``/``Mapping`` (covariant), so a ``dict[str, float]`` or a
  ``list[int]`` built by a caller is a ``JSONValue`` without copying.
- :data:`JSONObject` is a JSON object a function builds and returns (a real ``dict``, so the
  caller may add keys).
- A JSON object a function only reads is a ``Mapping[str, object]`` parameter.
- Readers narrow with ``isinstance`` or the helpers below instead of casting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JSONScalar: TypeAlias = str | int | float | bool | None
JSONValue: TypeAlias = JSONScalar | Sequence["JSONValue"] | Mapping[str, "JSONValue"]
JSONObject: TypeAlias = dict[str, JSONValue]


def as_object(value: object) -> JSONObject:
    """``value`` if it is a JSON object (a copy, keys as given), else an empty one."""
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v for k, v in value.items()}


def as_list(value: object) -> list[JSONValue]:
    """``value`` if it is a JSON array (a list copy), else an empty one."""
    return list(value) if isinstance(value, list | tuple) else []


def as_count(value: object) -> int:
    """``value`` if it is a positive JSON integer (a server's counter), else 0: never a bool or a string."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
