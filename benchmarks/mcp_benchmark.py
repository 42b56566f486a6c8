"""The MCP server's start-up and per-call latency on a real database, as a client sees them.

- start-up: a fresh ``python -m specbrowser mcp DB`` over stdio, from launch to the answered
  ``initialize`` (the SDK client's connect), median of ``--repeat`` runs;
- latency: a server on streamable HTTP at a loopback port, one client, calls one after
  another: ``get_chunk`` and ``check_subsections`` on chunks chosen at random (with a fixed
  seed; subsections on chunks that have some), lexical ``search`` over the ECMA-262 query set
  (``benchmarks/ecma262_queries.json``); p50 and p90 in milliseconds, round trip included;
- concurrency: ``--concurrent`` calls (the three kinds in turn) started at once on one HTTP
  session: errors, wall time, per-call p50 and p90.

    python benchmarks/mcp_benchmark.py DB [--calls 200] [--concurrent 100] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from specbrowser.session import Session

ROOT = Path(__file__).resolve().parent.parent
QUERIES = [q["query"] for q in json.loads((ROOT / "benchmarks/ecma262_queries.json").read_text())]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def startup(db: Path, repeat: int) -> list[float]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "specbrowser", "mcp", str(db)], env=_env()
    )

    async def once() -> float:
        start = time.perf_counter()
        async with Client(params):
            return time.perf_counter() - start

    return [anyio.run(once) for _ in range(repeat)]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _calls(db: Path, count: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(262)
    with Session.open(db) as session:
        chunks = list(session.store.iter_chunks())
    parents = [c.id for c in chunks if c.subsections]
    calls: list[tuple[str, dict[str, Any]]] = []
    for i in range(count):
        calls.append(("get_chunk", {"id": rng.choice(chunks).id}))
        calls.append(("check_subsections", {"id": rng.choice(parents)}))
        calls.append(("search", {"query": QUERIES[i % len(QUERIES)], "mode": "lexical"}))
    return calls


def _serve(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "specbrowser", "mcp", str(db), "--http", f"127.0.0.1:{port}"],
        env=_env(),
        stdout=subprocess.DEVNULL,
    )
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)


def latency(url: str, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, list[float]]:
    async def run() -> dict[str, list[float]]:
        times: dict[str, list[float]] = {}
        async with Client(url) as client:
            for tool, args in calls[:30]:  # warm-up: connections, page caches
                await client.call_tool(tool, args)
            for tool, args in calls:
                start = time.perf_counter()
                result = await client.call_tool(tool, args)
                times.setdefault(tool, []).append(time.perf_counter() - start)
                assert not result.is_error, (tool, args, result.content)
        return times

    return anyio.run(run)


def concurrent(url: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[float, list[float], int]:
    async def run() -> tuple[float, list[float], int]:
        times: list[float] = []
        errors = [0]
        async with Client(url) as client:

            async def one(tool: str, args: dict[str, Any]) -> None:
                start = time.perf_counter()
                result = await client.call_tool(tool, args)
                times.append(time.perf_counter() - start)
                errors[0] += bool(result.is_error)

            start = time.perf_counter()
            async with anyio.create_task_group() as group:
                for tool, args in calls:
                    group.start_soon(one, tool, args)
            return time.perf_counter() - start, times, errors[0]

    return anyio.run(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--calls", type=int, default=200, help="sequential calls per tool")
    parser.add_argument("--concurrent", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    starts = startup(args.db, args.repeat)
    print(
        f"start-up to initialize (stdio): median {statistics.median(starts):.2f} s, "
        f"runs {', '.join(f'{s:.2f}' for s in starts)}"
    )
    server, url = _serve(args.db)
    try:
        calls = _calls(args.db, args.calls)
        times = latency(url, calls)
        print("| tool | calls | p50 (ms) | p90 (ms) |\n|---|---|---|---|")
        for tool, values in times.items():
            print(
                f"| `{tool}` | {len(values)} | {1000 * statistics.median(values):.1f} | "
                f"{1000 * _percentile(values, 0.9):.1f} |"
            )
        wall, values, errors = concurrent(url, calls[: args.concurrent])
        print(
            f"{len(values)} concurrent calls: {errors} errors, wall {wall:.2f} s, per call "
            f"p50 {1000 * statistics.median(values):.0f} ms, "
            f"p90 {1000 * _percentile(values, 0.9):.0f} ms"
        )
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
