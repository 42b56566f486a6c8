"""``specbrowser mcp``: serve a database to agents over the Model Context Protocol."""

from __future__ import annotations

import argparse
import ipaddress

from specbrowser.cli._console import err
from specbrowser.cli._options import add_db_argument
from specbrowser.errors import PolicyError

# Deferred to cmd_mcp, so that `--help` (which builds every command's parser) and a bad argument
# come without them: Session (the session and store modules, 55–70 ms) and the MCP server (the MCP
# SDK, 0.7 s).

LOOPBACK_NAMES = ("localhost",)
"""Host names taken as loopback without resolving them."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``mcp`` to the subcommands."""
    p = sub.add_parser(
        "mcp", help="serve the database's chunks to agents (MCP over stdio, or HTTP on loopback)"
    )
    add_db_argument(p)
    p.add_argument(
        "--set",
        metavar="VERSION",
        dest="policy_version",
        help="read this chunk set (a version or unique prefix) instead of the active one",
    )
    p.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="streamable HTTP at http://HOST:PORT/mcp instead of stdio (a loopback host)",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --http listen on a host other than loopback (no authentication!)",
    )
    p.set_defaults(handler=cmd_mcp)


def parse_address(text: str, *, allow_remote: bool = False) -> tuple[str, int]:
    """``(host, port)`` of ``HOST:PORT`` (``[::1]:PORT`` for IPv6).

    Raises:
        PolicyError: not HOST:PORT, a port outside 1–65535, or a host that is not loopback
            without ``allow_remote``.
    """
    host, sep, port_text = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise PolicyError(f"--http takes HOST:PORT (such as 127.0.0.1:8765), not {text!r}")
    if not allow_remote and not is_loopback(host):
        raise PolicyError(
            f"--http {text}: {host} is not a loopback address, and the server has no "
            "authentication; use 127.0.0.1, or add --allow-remote to serve it anyway"
        )
    return host, int(port_text)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (127.0.0.0/8, ::1) or ``localhost``."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_mcp(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.session import Session

    address = parse_address(args.http, allow_remote=args.allow_remote) if args.http else None
    with Session.open(args.db) as session:  # a bad path or set: one line now, not per call
        version = session.resolve_version(args.policy_version) if args.policy_version else None
        if version is None:
            session.active_version()
    # deferred: see the module's imports
    from specbrowser.mcp.reader import Reader
    from specbrowser.mcp.server import serve

    reader = Reader(args.db, version)
    if address is None:
        serve(reader)
    else:
        host, port = address
        shown = f"[{host}]" if ":" in host else host
        err.print(
            f"serving {args.db} to MCP clients at http://{shown}:{port}/mcp (Ctrl-C stops)",
            markup=False,
            highlight=False,
        )
        serve(reader, transport="http", host=host, port=port, loopback=is_loopback(host))
    return 0
