"""The tool registry (``specbrowser.mcp.tools.TOOLS``): what the server lists is what the
registry declares, and a handler is a plain function of a session and its arguments."""

from __future__ import annotations

from typing import Any

from mcp import Client

from specbrowser.mcp.inputs import GetChunkInput
from specbrowser.mcp.tools import TOOLS, get_chunk
from specbrowser.session import Session
from tests.mcp_helpers import call, ok, with_client


def untitled(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema without its title (the SDK titles the input schema ``{name}Arguments``)."""
    return {key: value for key, value in schema.items() if key != "title"}


def test_the_server_lists_exactly_the_registry_s_tools_with_their_schemas(toylang_db):
    async def script(client: Client) -> Any:
        return await client.list_tools()

    listed = with_client(toylang_db, script).tools
    assert [t.name for t in listed] == [t.name for t in TOOLS]
    for tool, shown in zip(TOOLS, listed, strict=True):
        assert shown.description == tool.description, tool.name
        assert untitled(shown.input_schema) == untitled(tool.input_model.model_json_schema())
        assert shown.input_schema["additionalProperties"] is False, tool.name
        assert shown.output_schema == tool.output_model.model_json_schema(), tool.name


def test_a_handler_answers_without_the_server_as_the_tool_does(toylang_db):
    with Session.open(toylang_db) as session:
        direct = get_chunk(session, session.active_version(), GetChunkInput(id="4.2.2"))
    assert ok(call(toylang_db, "get_chunk", {"id": "4.2.2"})) == direct.model_dump(mode="json")
