"""``ptoc graph FILE --function F``: the task graph of an orchestration function as Graphviz
DOT (the default) or JSON, on standard output or into ``-o OUT``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..cli import (
    EXIT_ERRORS,
    EXIT_OK,
    add_specialise,
    analyze,
    fail,
    has_errors,
    read_source,
    report,
)
from .export import to_dot
from .select import function_graph

DESCRIPTION = (
    "Write the task graph of an orchestration function: a node per kernel launch (pl.submit, "
    "pl.spmd_submit, a kernel call, an InCore region) with its SPMD width and loops, an edge "
    "per deps= TaskId and per tensor a task reads that an earlier one wrote."
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "graph", help="write an orchestration function's task graph", description=DESCRIPTION
    )
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--function", required=True, metavar="NAME", help="the function")
    parser.add_argument(
        "--format",
        choices=("dot", "json"),
        default=None,
        help="default: from -o's suffix, else dot",
    )
    parser.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")
    add_specialise(parser)
    parser.set_defaults(handler=run_graph)


def run_graph(args: argparse.Namespace) -> int:
    analysis = analyze(read_source(args.file), args.file)
    report(analysis.diagnostics)
    if has_errors(analysis.diagnostics):
        return EXIT_ERRORS
    graph = function_graph(analysis, args.function, args.specialise)
    if isinstance(graph, str):
        fail(f"'{args.file}': {graph}")
        return EXIT_ERRORS
    fmt = args.format or ("json" if str(args.output or "").endswith(".json") else "dot")
    text = to_dot(graph) if fmt == "dot" else json.dumps(graph.to_json(), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK
