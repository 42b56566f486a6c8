"""The MCP server as a client meets it: ``python -m specbrowser mcp DB`` launched and talked to
over stdio, and over streamable HTTP on loopback (100 calls at once); the command's refusals in
one line; ``show`` and ``subsections`` as JSON; a server module that loads neither Textual nor
Rich. The sample spec is ``toylang_db``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from specbrowser.cli import main
from specbrowser.session import Session
from tests.helpers import ROOT
from tests.mcp_helpers import BIG, TABLE, TOOLS, ok


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }


def test_stdio_server_launched_as_a_client_would(toylang_db):
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "specbrowser", "mcp", str(toylang_db)], env=_env()
    )

    async def run() -> tuple[float, Any, Any, Any]:
        start = time.perf_counter()
        async with Client(params) as client:
            ready = time.perf_counter() - start
            tools = await client.list_tools()
            found = await client.call_tool("fetch_section_chunks", {"id": TABLE})
            bad = await client.call_tool("get_chunk", {"id": "sec-nope"})
            return ready, tools, found, bad

    ready, tools, found, bad = anyio.run(run)
    assert {t.name for t in tools.tools} == TOOLS
    assert ok(found)["chunks"][0]["id"] == TABLE and bad.is_error
    assert ready < 10  # about 0.7 s here (BENCHMARKS.md); generous for a loaded CI machine


def test_stdio_server_answers_a_malformed_line_with_a_json_rpc_error(toylang_db):
    """A line that is not JSON gets a parse error (-32700), JSON that is no JSON-RPC message an
    invalid request (-32600), both with id null; the requests around them are answered."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    lines = ["not json {", json.dumps(initialize), '{"unexpected": 1}', ""]
    done = subprocess.run(
        [sys.executable, "-m", "specbrowser", "mcp", str(toylang_db)],
        input="\n".join(lines),
        capture_output=True,
        text=True,
        env=_env(),
        timeout=30,
        check=False,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["id"], r.get("error", {}).get("code")) for r in replies] == [
        (None, -32700),
        (1, None),
        (None, -32600),
    ]
    assert replies[1]["result"]["serverInfo"]["name"] == "specbrowser"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.serial
def test_http_server_on_loopback_answers_concurrent_calls(toylang_db):
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "specbrowser",
            "mcp",
            str(toylang_db),
            "--http",
            f"127.0.0.1:{port}",
        ],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, server.stderr
                time.sleep(0.05)

        async def run() -> list[Any]:
            results: list[Any] = []
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:

                async def one(i: int) -> None:
                    tool, args = [
                        ("get_chunk", {"id": TABLE}),
                        ("check_subsections", {"id": BIG}),
                        ("search", {"query": "widget", "mode": "lexical"}),
                    ][i % 3]
                    results.append(await client.call_tool(tool, args))

                async with anyio.create_task_group() as group:
                    for i in range(100):
                        group.start_soon(one, i)
            return results

        results = anyio.run(run)
        assert len(results) == 100 and not any(r.is_error for r in results)
        rebound = urllib.request.Request(
            f"http://127.0.0.1:{port}/mcp",
            data=b"{}",
            headers={"Host": "evil.example", "Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(rebound, timeout=10)
        refused.value.close()
        assert refused.value.code in (400, 403, 421)  # a name that is not loopback: refused
    finally:
        server.terminate()
        server.wait(timeout=10)
        assert server.stderr is not None
        logged = server.stderr.read().decode()
        server.stderr.close()
    # the refusal is one plain line, as specbrowser's own are (not Rich's multi-line record)
    assert "warning: Invalid Host header: evil.example" in logged.splitlines(), logged


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--http", "0.0.0.0:8765"], "is not a loopback address"),
        (["--http", "8765"], "--http takes HOST:PORT"),
        (["--http", "127.0.0.1:0"], "--http takes HOST:PORT"),
        (["--set", "ffffff"], "ffffff"),
    ],
)
def test_mcp_command_refuses_bad_options_in_one_line(toylang_db, capsys, argv, expected):
    assert main(["mcp", str(toylang_db), *argv]) == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1


def test_allow_remote_accepts_any_host():
    from specbrowser.cli.agent import parse_address

    assert parse_address("0.0.0.0:8765", allow_remote=True) == ("0.0.0.0", 8765)
    assert parse_address("[::1]:9000") == ("::1", 9000)
    assert parse_address("localhost:9000") == ("localhost", 9000)


def test_show_and_subsections_json(toylang_db, capsys):
    assert main(["show", str(toylang_db), "4.2.2", "--recursive", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    with Session.open(toylang_db) as session:
        assert [c["id"] for c in shown["chunks"]] == [c.id for c in session.descendants(BIG)]
    assert shown["chunks"][0]["size"] == len(shown["chunks"][0]["text"])
    assert main(["subsections", str(toylang_db), TABLE, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["id"] == TABLE and {s["kind"] for s in listed["subsections"]} == {"td"}


def test_the_server_module_loads_neither_textual_nor_rich():
    """stdout is the protocol's channel: nothing of specbrowser's may print to it (the SDK's
    own logging set-up, at start, may use Rich on stderr)."""
    probe = (
        "import sys, specbrowser.mcp.server; "
        "sys.exit(any(m.split('.')[0] in ('textual', 'rich') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", probe], env=_env(), check=False).returncode == 0


def test_mcp_command_refuses_a_missing_database(tmp_path, capsys):
    assert main(["mcp", str(tmp_path / "none.db")]) == 2
    assert "does not exist" in capsys.readouterr().err
