"""`ptols` / `python -m ptols`: the PyPTO language server (stdio by default)."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from . import __version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ptols", description="PyPTO language server")
    parser.add_argument(
        "--stdio", action="store_true", help="speak LSP on stdin/stdout (the default)"
    )
    parser.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="listen on a TCP socket instead; HOST must be a loopback address (127.0.0.1, ::1, "
        "localhost) unless --allow-remote is given",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --tcp listen on any address: whoever reaches the port can make this machine "
        "build and run code (ptols/run), so use it only on a trusted network",
    )
    parser.add_argument("--log-file", help="write the server log to this file")
    parser.add_argument(
        "--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    parser.add_argument("--version", action="version", version=f"ptols {__version__}")
    args, _unknown = parser.parse_known_args(argv)  # clients may add flags of their own
    log_format = "%(asctime)s %(name)s %(levelname)s %(message)s"
    if args.log_file:
        logging.basicConfig(
            filename=args.log_file, level=getattr(logging, args.log_level), format=log_format
        )
    else:  # stdout carries the protocol: logs go to stderr
        logging.basicConfig(
            stream=sys.stderr, level=getattr(logging, args.log_level), format=log_format
        )
    if args.tcp:  # refused before anything loads
        address = tcp_address(args.tcp, args.allow_remote, parser)
    first = None
    if not args.tcp and os.name == "posix":  # early.py waits on stdin with select()
        from .early import answer_initialize

        first = answer_initialize(sys.stdin.buffer, sys.stdout.buffer)  # before pygls loads
    from . import generated_code

    # Importing pygls is mostly attrs compiling lsprotocol's classes: cached once compiled.
    generated_code.install()
    from .features.formatting import black_in_child
    from .server import SWITCH_INTERVAL, create_server

    server = create_server()
    black_in_child(server.format_child)  # process-wide: the server's process only, not tests'
    generated_code.flush()
    # The message loop hands work to analysis and compile threads and answers while they run:
    # a shorter switch interval lets it take the interpreter lock back sooner (5 ms by default).
    sys.setswitchinterval(SWITCH_INTERVAL)
    if args.tcp:
        server.start_tcp(*address)
    else:
        server.start_io(first=first)
    return 0


def tcp_address(spec: str, allow_remote: bool, parser: argparse.ArgumentParser) -> tuple[str, int]:
    """HOST:PORT of ``--tcp``; a host that is not loopback is refused without --allow-remote
    (the server compiles and runs what a client sends)."""
    host, _, port = spec.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")  # [::1]:8765
    if not host or not port.isdigit():
        parser.error("--tcp takes HOST:PORT, e.g. 127.0.0.1:8765")
    if not allow_remote and not is_loopback(host):
        parser.error(
            f"--tcp {spec}: {host} is not (only) a loopback address; whoever reaches the port"
            " could make this machine build and run code. Listen on 127.0.0.1, or add"
            " --allow-remote on a trusted network"
        )
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback one (a name is resolved)."""
    import ipaddress
    import socket

    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False
    try:
        return bool(found) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in found)
    except ValueError:
        return False


if __name__ == "__main__":
    raise SystemExit(main())
