"""Reading request fields: each bad value becomes a BadRequest naming the field."""

from __future__ import annotations

import math
from typing import Any

from .errors import BadRequest


def number_field(body: dict[str, Any], key: str, default: float, minimum: float | None = None, maximum: float | None = None) -> float:
    """A finite number within [minimum, maximum]; absent or null gives `default`."""
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadRequest(f"{key} must be a finite number, got {value!r}", key, value)
    if minimum is not None and value < minimum or maximum is not None and value > maximum:
        raise BadRequest(f"{key} must lie in [{minimum}, {maximum}], got {value}", key, value)
    return float(value)


def string_field(body: dict[str, Any], key: str) -> str:
    """A non-empty string."""
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise BadRequest(f"{key} must be a non-empty string", key, value)
    return value
