"""The stdio transport with JSON-RPC's error replies to lines that are not messages.

The SDK's :func:`~mcp.server.stdio.stdio_server` passes a line it cannot read on as an exception
item of its read stream, and the server's dispatcher drops such items (debug-logged), so a client
that sent a malformed line waits for an answer that never comes. :class:`ParseErrorReplies` sits
between the two: it answers each such line on the write stream, as JSON-RPC 2.0 says (section 5.1,
``id`` null since none could be read), and hands the dispatcher only the messages.
"""

from __future__ import annotations

import contextvars
from types import TracebackType
from typing import Any

from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

Item = SessionMessage | Exception
"""What the SDK's stdio read stream yields: a message, or why a line was none."""


def error_reply(problem: Exception) -> SessionMessage:
    """The reply to a line that was not a message: a parse error (-32700) for a line that is not
    JSON, an invalid request (-32600) for JSON that is not a JSON-RPC message."""
    not_json = isinstance(problem, ValidationError) and any(
        error["type"] == "json_invalid" for error in problem.errors()
    )
    error = (
        ErrorData(code=PARSE_ERROR, message="Parse error: the line is not JSON")
        if not_json
        else ErrorData(
            code=INVALID_REQUEST, message="Invalid request: the line is not a JSON-RPC message"
        )
    )
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=None, error=error))


class ParseErrorReplies:
    """A read stream of the messages of ``inner``; every exception item of ``inner`` is answered
    on ``replies`` (:func:`error_reply`) instead of passed on. Satisfies the SDK's read-stream
    protocol, the sender context of the last item (``last_context``) included."""

    def __init__(self, inner: Any, replies: Any) -> None:
        self.inner = inner
        self.replies = replies

    @property
    def last_context(self) -> contextvars.Context | None:
        return getattr(self.inner, "last_context", None)

    async def receive(self) -> Item:
        while True:
            item: Item = await self.inner.receive()
            if not isinstance(item, Exception):
                return item
            await self.replies.send(error_reply(item))

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> ParseErrorReplies:
        return self

    async def __anext__(self) -> Item:
        while True:
            item: Item = await self.inner.__anext__()
            if not isinstance(item, Exception):
                return item
            await self.replies.send(error_reply(item))

    async def __aenter__(self) -> ParseErrorReplies:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None
