"""Errors that become HTTP answers: each carries its status, the offending parameter and value."""

from __future__ import annotations

from typing import Any


class WorkerError(Exception):
    """A request the worker refuses; `status` is the HTTP status, `param` names the offending field."""

    status = 400
    kind = "invalid_request_error"

    def __init__(self, message: str, param: str | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.value = value

    def to_json(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.kind, "param": self.param}}


class BadRequest(WorkerError):
    """The request body is malformed or names impossible values."""


class NotFound(WorkerError):
    """The request names an adapter or model the worker does not hold."""

    status = 404
    kind = "not_found_error"


class Conflict(WorkerError):
    """The request would replace something that exists (e.g. an adapter name already taken)."""

    status = 409
    kind = "conflict_error"


class Forbidden(WorkerError):
    """A file path outside the worker's file root."""

    status = 403
    kind = "permission_error"


class Unauthorized(WorkerError):
    """Missing or wrong bearer token."""

    status = 401
    kind = "authentication_error"


class PayloadTooLarge(WorkerError):
    """The body exceeds the worker's request size limit."""

    status = 413
    kind = "invalid_request_error"


class RequestTimeout(WorkerError):
    """The request's body stopped arriving (nothing for the worker's request timeout)."""

    status = 408
    kind = "invalid_request_error"
