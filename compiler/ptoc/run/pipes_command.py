"""``ptoc run --pipes``: lower the function, run it in many interleavings of its pipes
(``pipes.py``) and report what differs from program order."""

from __future__ import annotations

import argparse

from ..cli import EXIT_ERRORS, EXIT_OK, fail, report
from ..ir.function import Function, FunctionType, Program


def run_pipes_command(args: argparse.Namespace, program: Program, function: Function) -> int:
    from .. import driver
    from ..interp import InterpError
    from .execute import tensor_level
    from .inputs import generate_inputs, load_npz
    from .pipes import deadlock_line, race_line, run_pipes

    if function.func_type is FunctionType.Orchestration:
        fail(f"'{function.name}' is an orchestration function: --pipes runs one kernel")
        return EXIT_ERRORS
    program, function = tensor_level(program, function.name)
    given = load_npz(args.inputs) if args.inputs else None
    inputs = generate_inputs(program, function, args.seed, given)
    lowered = driver.run_pipeline(driver.narrow(program, function.name), args.pipes)
    report(lowered.diagnostics)
    kernel = lowered.program.function(function.name)
    if lowered.has_errors or kernel is None:
        return EXIT_ERRORS
    try:
        outcome = run_pipes(lowered.program, kernel, inputs, args.seed)
    except InterpError as exc:
        fail(f"the reference interpreter stopped: {exc}")
        return EXIT_ERRORS
    for race, count in outcome.races.values():
        print(f"{race_line(race)} [{count} of {outcome.interleavings} interleavings]")
    if outcome.deadlocks:
        print(f"{deadlock_line(outcome.deadlocks[0])} [{len(outcome.deadlocks)} interleavings]")
    for number, differ in outcome.mismatches[:1]:
        print(f"interleaving {number}:")
        for comparison in differ:
            print(f"  {comparison.line()}")
    bad = len(outcome.races) + len(outcome.deadlocks) + len(outcome.mismatches)
    summary = (
        f"{function.name}: {outcome.interleavings} interleavings of its pipes (pipeline "
        f"{args.pipes}, seed {args.seed}): {len(outcome.races)} race(s), "
        f"{len(outcome.deadlocks)} deadlocked, {len(outcome.mismatches)} with different results"
    )
    print(summary)
    return EXIT_ERRORS if bad else EXIT_OK
