"""Results to text and JSON. Pure functions: they return strings and dicts; cli.py prints."""

from __future__ import annotations

import json
from importlib.resources import files

from tlacheck import SCHEMA_VERSION, __version__
from tlacheck.compile.model import Model
from tlacheck.core.errors import Diagnostic
from tlacheck.core.result import Answer, Check, Result, Trace, Verdict
from tlacheck.output import diff


_HEADLINES = {
    Verdict.OK: "No error found.",
    Verdict.INCOMPLETE: "Stopped before the search was complete: no error found so far.",
}

_STOP_REASONS = {
    "max_states": "the --max-states limit was reached",
    "max_depth": "the --max-depth limit was reached",
    "time_limit": "the --time-limit was reached",
    "memory_limit": "the --memory-limit was reached",
    "interrupted": "interrupted",
}


def _n(x: int) -> str:
    return f"{x:,}"


def format_trace(model: Model, trace: Trace, full: bool = False, labels=None) -> str:
    """A TLC-like trace: one block per state and the action that led to it. The first state
    lists every variable; later states list what the step changed, marked `*`, entry by entry
    (output/diff.py): `pc[c1] = Waiting    (was Ready)`, `waiting + c2` (an element added to a set,
    sequence or map), `waiting - c1` (removed); a value changed as a whole shows its old value.
    `full`: every variable, as TLC prints them, the entries that changed under each changed one.
    Values longer than a line wrap after a comma (diff.wrap). `labels`: per state, a text to end
    its heading with (`conform` names the log line each step matched), or None."""
    lines = []
    per_step = [None] + [diff.step_changes(model, a.state, b.state) for a, b in zip(trace.steps, trace.steps[1:])]
    derived = [model.derived_values(step.state) for step in trace.steps]
    first_rows = model.state_rows(trace.steps[0].state) if trace.steps else []
    width = max([len(n) for n in model.var_names] + [len(label) for _, label, _ in first_rows]
                + [len(d.name) for d in (derived[0] if derived else ())] + [0])
    width = max([width] + [len(c.path) for found in per_step[1:] for c in found if len(c.path) <= _PATH_COLUMN])
    for i, (step, found) in enumerate(zip(trace.steps, per_step), start=1):
        if step.action is None:
            lines.append(f"State {i}: initial state")
        else:
            info = model.action_info[step.action]
            where = f"{info.span.file}:{info.span.line}"
            lines.append(f"State {i}: {model.step_label(step.action, step.args)}    ({where})")
        if labels is not None and labels[i - 1]:
            lines[-1] += f"    {labels[i - 1]}"
        shown = model.format_state(step.state)
        by_variable: dict[str, list[diff.Change]] = {}
        for c in found or ():
            by_variable.setdefault(c.variable, []).append(c)
        unchanged = 0
        if found is None and not full:  # the first state: every variable, a process's by instance
            for _, label, text in model.state_rows(step.state):
                _value_lines(lines, " ", label, width, "=", text)
        for name in model.var_names if found is not None or full else ():
            mine = by_variable.get(name)
            if mine is not None and not full:
                for c in mine:
                    change_lines(lines, c, width)
            elif mine is not None:
                whole = len(mine) == 1 and mine[0].whole
                _value_lines(lines, "*", name, width, "=", shown[name], mine[0].old_text if whole else None)
                if not whole:
                    for c in mine:  # under the value, unpadded
                        change_lines(lines, c, 0, mark=" ", indent=" " * (width + 3))
            elif found is None or full:
                _value_lines(lines, " ", name, width, "=", shown[name])
            else:
                unchanged += 1
        if unchanged and not full:
            if unchanged == len(model.var_names):
                lines.append("    (no variable changed)")
            else:
                lines.append(f"    ({unchanged} other variable{'s' if unchanged != 1 else ''} unchanged)")
        _derived_lines(lines, derived[i - 2] if i > 1 else None, derived[i - 1], width, full)
        if trace.loop_index is not None and i == len(trace.steps):
            if trace.closing is None:
                lines.append("  (the behaviour stays in this state forever: it stutters)")
            else:
                label = model.step_label(trace.closing.action, trace.closing.args)
                lines.append(f"  then {label} leads back to state {trace.loop_index + 1}, and the cycle repeats forever")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


_PATH_COLUMN = 32  # change paths up to this long widen the name column; longer ones overflow it


def _derived_lines(lines: list[str], before, after, width: int, full: bool) -> None:
    """The derived values of a state, marked `~`: every one in the first state (and with `full`),
    else what the step changed in them, entry by entry as for variables."""
    if not after:
        return
    if before is None or full:
        for d in after:
            _value_lines(lines, "~", d.name, width, "=", d.text, None)
        return
    for c in diff.derived_changes(before, after):
        change_lines(lines, c, width, mark="~")


def change_lines(lines: list[str], c: diff.Change, width: int, mark: str = "*", indent: str = "") -> None:
    """Append one change as the text trace shows it (`  * path = new    (was old)`, `  * set + x`)."""
    if c.op is diff.Op.CHANGED:
        _value_lines(lines, mark, c.path, width, "=", c.new_text, c.old_text, indent)
    else:
        _value_lines(lines, mark, c.path, width, c.sign, c.element_text, None, indent)


def _value_lines(lines: list[str], mark: str, label: str, width: int, op: str, text: str, was: str | None = None,
                 indent: str = "") -> None:
    """`  * label = text    (was old)`, wrapped under the value's column when longer than diff.WIDTH."""
    head = f"{indent}  {mark} {label:<{width}} {op} "
    room = max(diff.WIDTH - len(head), 40)
    body = diff.wrap(text, room)
    if was is not None:
        tail = f"(was {was})"
        if len(body) == 1 and len(head) + len(body[0]) + 4 + len(tail) <= diff.WIDTH:
            body[0] += "    " + tail
        else:
            body += diff.wrap(tail, room)
    lines.append(head + body[0])
    lines += [" " * len(head) + b for b in body[1:]]


def trace_omitted(result: Result) -> str | None:
    """Why an evaluation error comes without its trace although it happened in a reachable state:
    "out of memory" when rebuilding the trace ran out of memory after an E411 (the explorer sets
    the error's `trace_omitted`), else None."""
    if result.verdict != Verdict.ERROR or result.error is None:
        return None
    return getattr(result.error, "trace_omitted", None)


def _refinement(model: Model, result: Result):
    """The refinement (compile/refinement.py Check) that the result's violation is of, or None."""
    v = result.violation
    if result.verdict not in (Verdict.INVARIANT_VIOLATED, Verdict.LIVENESS_VIOLATED) \
            or v.kind not in (Check.STEP, Check.PROPERTY, Check.LIVENESS):
        return None
    return next((c for c in model.refinements if c.name == v.name), None)


def _refinement_lines(check, v) -> list[str]:
    """What the violating state or step of a refinement maps to in the abstract spec."""
    abstract = check.abstract.name
    steps = v.trace.steps
    if v.kind == Check.LIVENESS:
        return []
    if v.kind == Check.STEP:
        return [f"Mapped to {abstract}, the last step goes",
                f"    from {check.describe(steps[-2].state)}",
                f"    to   {check.describe(steps[-1].state)}",
                f"and no action of {abstract} takes that step."]
    return [f"Mapped to {abstract}, the initial state is {check.describe(steps[0].state)}, "
            f"which is not an initial state of {abstract}."]


def verdict_text(result: Result) -> str:
    """The verdict in words, for people (`invariant violated`); `--json` keeps the enum's value."""
    v = result.violation
    if result.verdict == Verdict.INVARIANT_VIOLATED and v is not None and v.kind in (Check.PROPERTY, Check.STEP):
        return {Check.PROPERTY: "safety property violated", Check.STEP: "step property violated"}[v.kind]
    return {Verdict.OK: "no error found", Verdict.INVARIANT_VIOLATED: "invariant violated",
            Verdict.DEADLOCK: "deadlock", Verdict.LIVENESS_VIOLATED: "temporal property violated",
            Verdict.ERROR: "evaluation error", Verdict.INCOMPLETE: "incomplete",
            Verdict.UNREACHABLE: "reachable check failed"}[result.verdict]


def _headline(result: Result, model: Model | None = None) -> str:
    v = result.violation
    check = _refinement(model, result) if model is not None else None
    if check is not None:
        what = {Check.STEP: "the last step is not a step of it", Check.PROPERTY: "an initial state is not one of its",
                Check.LIVENESS: v.message}[v.kind]
        return f"Error: refinement {v.name} of {check.abstract.name} is violated: {what}."
    if result.verdict == Verdict.INVARIANT_VIOLATED and v.kind == Check.PROPERTY:
        return f"Error: property {v.name} is violated: {v.message}."
    if result.verdict == Verdict.INVARIANT_VIOLATED and v.kind == Check.STEP:
        return f"Error: step property {v.name} is violated: {v.message}."
    if result.verdict == Verdict.INVARIANT_VIOLATED:
        return f"Error: invariant {v.name} is violated."
    if result.verdict == Verdict.DEADLOCK:
        return "Error: deadlock reached (a state with no successor)."
    if result.verdict == Verdict.ERROR:
        err = result.error
        where = f"{err.span}: " if err is not None and err.span is not None else ""
        return f"{where}error[{err.code}]: {err.message}" if err is not None else "Error."
    if result.verdict == Verdict.LIVENESS_VIOLATED:
        return f"Error: temporal property {v.name} is violated: {v.message}."
    if result.verdict == Verdict.UNREACHABLE:
        return f"Error: reachable check {v.name} failed: no reachable state satisfies it."
    if result.verdict == Verdict.INCOMPLETE and result.undecided:
        return "Stopped while checking the temporal properties: no error found so far."
    return _HEADLINES[result.verdict]


def format_result(model: Model, result: Result, spec_path: str, full: bool = False,
                  unchecked_deadlock: str | None = None) -> str:
    """The whole text report for `tlacheck check`. `unchecked_deadlock`: why deadlocks were not
    checked (None: they were), said in the summary."""
    out = [f"tlacheck {__version__}: checking {spec_path} (spec {model.name})", ""]
    out.append(_headline(result, model))
    refined = _refinement(model, result)
    if refined is not None:
        out += _refinement_lines(refined, result.violation)
    if result.verdict == Verdict.INCOMPLETE:
        out.append(f"Reason: {_STOP_REASONS.get(result.stop_reason, result.stop_reason)}.")
    if result.undecided:
        out.append(f"The search was complete; not decided: {', '.join(result.undecided)}.")
    v = result.violation
    omitted = trace_omitted(result)
    if omitted is not None:
        out.append(f"The trace to the state where the error occurred could not be rebuilt: {omitted}; "
                   "it is left out.")
    if v is not None and v.trace.steps:
        n = len(v.trace.steps) - 1
        if result.verdict == Verdict.ERROR:
            out.append(f"The error occurred in the last state of this trace ({n} step{'s' if n != 1 else ''}):")
        elif v.trace.loop_index is not None:
            k = v.trace.loop_index + 1
            if v.trace.closing is None:
                out.append(f"Counterexample: {n} step{'s' if n != 1 else ''}, then the behaviour stutters in state {n + 1}"
                           " forever.")
            else:
                out.append(f"Counterexample: a prefix to state {k}, then a cycle through states {k}..{n + 1}"
                           " that repeats forever.")
        else:
            out.append(f"Shortest trace: {n} step{'s' if n != 1 else ''} after the initial state.")
        out.append("")
        out.append(format_trace(model, v.trace, full).rstrip())
    for name, trace in sorted(result.witnesses.items()):
        n = len(trace.steps) - 1
        out.append("")
        out.append(f"Reachable {name}: witnessed {n} step{'s' if n != 1 else ''} after an initial state (shortest):")
        out.append("")
        out.append(format_trace(model, trace, full).rstrip())
    out.append("")
    out.append(format_summary(model, result, unchecked_deadlock))
    return "\n".join(out).rstrip() + "\n"


def _cache_row(model: Model, c) -> str:
    """One action's transition cache in the summary: the share of its instances it answered."""
    said = f"{model.action_info[c.action].name}: {c.hit_rate:.1%} of {_n(c.hits + c.misses)} instances answered from it"
    if c.clears:
        said += f", emptied {_n(c.clears)}x"
    if c.gave_up:
        said += ", then turned off (too few hits)"
    return said


def format_summary(model: Model, result: Result, unchecked_deadlock: str | None = None) -> str:
    rate = result.states_generated / result.elapsed_s if result.elapsed_s > 0 else 0.0
    rows = [
        ("states generated", _n(result.states_generated)),
        ("distinct states", _n(result.distinct_states)),
        ("left on queue", _n(result.queue_left)),
        ("depth", _n(result.depth)),
        ("time", f"{result.elapsed_s:.2f} s ({_n(int(rate))} states/s)"),
    ]
    sym = result.symmetry
    if sym is not None:  # what the reduction saved, and what its orbit keys cost
        share = sym.keys_share(result.elapsed_s)
        per = sym.keys_s / result.states_generated * 1e6 if result.states_generated else 0.0
        rows.append(("symmetry", f"{_n(sym.orbits)} orbits stored, standing for {_n(sym.states)} states "
                                 f"({sym.reduction:.1f}x fewer); orbit keys {sym.keys_s:.2f} s "
                                 f"({per:.1f} us a successor, {share:.0%} of the time)"))
    if result.cache:  # what the transition caches answered (one process: docs/cli.md, --no-cache)
        rows.append(("transition cache", "; ".join(_cache_row(model, c) for c in result.cache)))
    out = ["Summary:"]
    out += [f"  {k:<17} {v}" for k, v in rows]
    if sym is not None and not sym.pays(result.elapsed_s):
        out.append(f"  = hint: symmetry probably cost more time than it saved: {sym.reduction:.1f}x fewer states, "
                   f"but the orbit keys took {share:.0%} of the time; compare a run with --no-symmetry "
                   "(docs/language.md, \"When symmetry pays\")")
    if result.fingerprint_collision is None:
        out.append("  states are stored exactly: no fingerprint collision is possible")
    else:
        out.append(f"  fingerprints: 64-bit; probability of a collision (optimistic, as TLC computes it): "
                   f"{result.fingerprint_collision:.1e}")
    if unchecked_deadlock is not None:
        out.append(f"  deadlocks were not checked ({unchecked_deadlock})")
    out += _coverage(model, result, {"enabled": lambda c, _: c.enabled, "generated": lambda c, _: c.generated,
                                     "distinct": lambda c, _: c.distinct})
    return "\n".join(out)


def _coverage(model: Model, result: Result, columns: dict) -> list[str]:
    """The coverage table: one row per action, one column per entry of `columns` (its heading,
    and a function of the action's ActionCoverage and index giving the count), then the actions
    never enabled (when nothing was found)."""
    if not model.action_info:
        return []
    width = max(len("action"), *(len(a.shown) for a in model.action_info))
    out = ["", "Coverage:", f"  {'action':<{width}}" + "".join(f"  {h:>10}" for h in columns)]
    for ai, (info, cov) in enumerate(zip(model.action_info, result.coverage)):
        out.append(f"  {info.shown:<{width}}" + "".join(f"  {_n(count(cov, ai)):>10}" for count in columns.values()))
    never = [info.shown for info, cov in zip(model.action_info, result.coverage) if cov.enabled == 0]
    if never and result.verdict in (Verdict.OK,):
        out.append(f"  never enabled: {', '.join(never)}")
    return out


def trace_json(model: Model, trace: Trace) -> list[dict]:
    """`{action, args, state, changes}` per step; `changes` lists what the step changed, entry by
    entry (diff.change_json), `[]` for the first state."""
    steps = []
    previous = None
    for step in trace.steps:
        if step.action is None:
            entry = {"action": None, "args": {}, "state": model.state_json(step.state)}
        else:
            entry = {
                "action": model.action_info[step.action].name,
                "args": model.args_json(step.action, step.args),
                "state": model.state_json(step.state),
            }
        entry["changes"] = [] if previous is None else _changes_json(model, previous, step.state)
        if model.derived:  # `derived` declarations: their values, and what the step changed in them
            values = model.derived_values(step.state)
            entry["derived"] = {d.name: d.json() for d in values}
            entry["derived_changes"] = [] if previous is None else [
                diff.change_json(c) for c in diff.derived_changes(model.derived_values(previous), values)]
        steps.append(entry)
        previous = step.state
    return steps


def _changes_json(model: Model, old: tuple, new: tuple) -> list[dict]:
    return [diff.change_json(c) for c in diff.changes(old, new, model.var_names, model.var_types)]


def result_json(model: Model, result: Result, spec_path: str) -> dict:
    """The `--json` object. Keys are stable; `elapsed_s` and `symmetry`'s `keys_s`, `keys_share`
    and `pays` are the only run-dependent values, and `transition_cache` depends on the processes
    that searched (summed over them: with --workers or --ray, on which states each expanded, which
    changes from run to run)."""
    violation = None
    if result.violation is not None:
        v = result.violation
        violation = {
            "kind": v.kind.value,
            "name": v.name,
            "message": v.message,
            "trace": trace_json(model, v.trace),
            "loop_index": v.trace.loop_index,
            "stutters": v.trace.loop_index is not None and v.trace.closing is None,
            "closing": None if v.trace.closing is None else {
                "action": model.action_info[v.trace.closing.action].name,
                "args": model.args_json(v.trace.closing.action, v.trace.closing.args),
                "changes": _changes_json(model, v.trace.steps[-1].state, v.trace.closing.state),
            },
        }
        if v.kind == Check.ERROR:  # why `trace` is empty although the error is in a reachable state, or null
            violation["trace_omitted"] = trace_omitted(result)
    error = None
    if result.error is not None:
        error = result.error.diagnostic().to_json()
    return {
        **header("check"),
        "spec": model.name,
        "file": spec_path,
        "verdict": result.verdict.value,
        "distinct_states": result.distinct_states,
        "states_generated": result.states_generated,
        "depth": result.depth,
        "queue_left": result.queue_left,
        "elapsed_s": round(result.elapsed_s, 3),
        "stop_reason": result.stop_reason,
        "symmetry": None if result.symmetry is None else {
            "orbits": result.symmetry.orbits, "states": result.symmetry.states,
            "reduction": round(result.symmetry.reduction, 2), "keys_s": round(result.symmetry.keys_s, 3),
            "keys_share": round(result.symmetry.keys_share(result.elapsed_s), 3),
            "pays": result.symmetry.pays(result.elapsed_s)},
        "transition_cache": None if result.cache is None else {
            model.action_info[c.action].name: {"hits": c.hits, "misses": c.misses, "clears": c.clears,
                                               "gave_up": c.gave_up}
            for c in result.cache},
        "coverage": {
            info.name: {"enabled": cov.enabled, "generated": cov.generated, "distinct": cov.distinct}
            for info, cov in zip(model.action_info, result.coverage)
        },
        "never_enabled": [info.name for info, cov in zip(model.action_info, result.coverage) if cov.enabled == 0],
        "violation": violation,
        "witnesses": {name: trace_json(model, t) for name, t in sorted(result.witnesses.items())},
        "error": error,
        "warnings": [w.to_json() for w in model.warnings],
        "undecided_properties": list(result.undecided),
    }


def json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of every object `--json` prints: tlacheck.schema.json,
    installed with the package. Its `$defs` has one definition per command's object."""
    return json.loads(files("tlacheck.output").joinpath("tlacheck.schema.json").read_text(encoding="utf-8"))


def header(command: str | None) -> dict:
    """The keys every `--json` object starts with: the schema version, the tool and its version,
    and the command that printed it (None: the arguments did not say)."""
    return {"schema_version": SCHEMA_VERSION, "tool": "tlacheck", "version": __version__, "command": command}


def errors_json(diagnostics: list[Diagnostic], spec_path: str | None, verdict: str = "error",
                command: str | None = None) -> dict:
    """The `--json` object of a command that stopped on errors (a spec, usage or evaluation error,
    a cluster that failed, memory) instead of giving its own."""
    return {
        **header(command),
        "file": spec_path,
        "verdict": verdict,
        "errors": [d.to_json() for d in diagnostics],
    }


def verify_json(rows, warnings: list[dict], stop_reason: str | None = None) -> dict:
    """The `verify --json` object: one row per expectation decided (all of them unless stopped:
    `stop_reason` `interrupted`, `max_states` or `time_limit`), the warnings, and the verdict: `ok`
    (every expectation met, or not decided by simulation), `failed` or `incomplete` (stopped
    before every expectation was decided)."""
    interrupted = stop_reason is not None
    failed = not all(r.ok or r.unchecked for r in rows)
    out = []
    for r in rows:
        trace = getattr(r.evidence, "trace", r.evidence)
        out.append({
            "file": r.file, "spec": r.spec, "variant": r.variant, "check": r.check,
            "expected": r.expected.value, "got": r.got.value, "ok": r.ok, "unchecked": r.unchecked, "states": r.states,
            "elapsed_s": round(r.seconds, 3), "trace_length": r.trace_length, "note": r.note,
            "trace": trace_json(r.model, trace) if trace is not None and trace.steps else None,
            "base_counterexample": None if r.replay is None else {
                "check": r.base[1].name or r.base[1].kind.value if r.base is not None else None,
                "blocked_state": r.blocked_state, "blocked_line": r.blocked_line, "message": r.replay},
        })
    return {**header("verify"),
            "verdict": "incomplete" if interrupted else "failed" if failed else "ok",
            "stop_reason": stop_reason,
            "ok": not failed and not interrupted, "rows": out, "warnings": warnings}


def replay_json(result, spec_path: str, trace_path: str, variant: str) -> dict:
    """The `replay --json` object of a replay.ReplayResult."""
    return {
        **header("replay"), "file": spec_path, "trace": trace_path, "variant": variant,
        "replays": result.replays, "outcome": result.outcome.value, "message": result.message,
        "state": result.state, "action": result.action, "replayed": result.replayed, "total_steps": result.total_steps,
        "causes": [{"message": c.message, "file": c.span.file if c.span else None,
                    "line": c.span.line if c.span else None, "column": c.span.column if c.span else None}
                   for c in result.causes],
        "differences": [{"variable": n, "path": p, "recorded": a, "replayed": b}
                        for n, p, a, b in result.differences],
        "still_violates": result.still_violates, "notes": list(result.notes),
    }


def format_verify(rows, simulation=None, stop_reason: str | None = None) -> str:
    """The `tlacheck verify` table, one row per expectation, then the failures in detail;
    `simulation` (SimOptions): the expectations were decided by simulation, which it says;
    `stop_reason`: the run was stopped (interrupted, or at a limit), the rows are those decided
    until then."""
    header = ("spec", "variant", "check", "expected", "got", "states", "time", "trace")
    table = []
    for r in rows:
        table.append((
            r.spec, r.variant, r.check, r.expected.value,
            ("ok " if r.ok else "" if r.unchecked else "FAIL ") + r.got.value,
            "" if r.states is None else _n(r.states), f"{r.seconds:.2f}s",
            "" if r.trace_length is None else str(r.trace_length),
        ))
    widths = [max(len(h), *(len(row[i]) for row in table)) if table else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row in table:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    replays = [r for r in rows if getattr(r, "replay", None)]
    if replays:
        lines.append("")
        lines.append("Base counterexamples against the fixes:")
        for r in replays:
            lines.append(f"  {r.variant} / {r.check}: {r.replay}")
    if simulation is not None:
        lines.append("")
        lines.append(f"Decided by simulation (seed {simulation.seed}, at most {_n(simulation.traces)} behaviours of "
                     f"{_n(simulation.depth)} steps per variant): `holds` means that no violation was found, not a "
                     "proof; reachable checks and liveness are not decided.")
    failed = [r for r in rows if not r.ok and not r.unchecked]
    unchecked = sum(1 for r in rows if r.unchecked)
    lines.append("")
    if stop_reason is not None:
        why = "Interrupted" if stop_reason == "interrupted" else f"Stopped ({_STOP_REASONS[stop_reason]})"
        lines.append(f"{why}: {len(rows)} expectation{'s' if len(rows) != 1 else ''} decided before the stop; "
                     "the others were not.")
    lines.append(f"{len(rows) - len(failed) - unchecked} of {len(rows)} expectations met" +
                 (f"; {unchecked} not decided by simulation" if unchecked else "") +
                 ("." if not failed else f"; {len(failed)} failed:"))
    for r in failed:
        lines.append("")
        lines.append(format_row_failure(r))
    return "\n".join(lines) + "\n"


def format_row_failure(r) -> str:
    """Why one expectation failed, with the counterexample or witness when there is one."""
    where = f"{r.span.file}:{r.span.line}: " if r.span is not None else ""
    out = [f"{where}expected `{r.variant}` {r.expected.value} {r.check}, but it {r.got.value}."]
    if r.note:
        out.append(r.note)
    evidence = r.evidence
    trace = getattr(evidence, "trace", evidence)
    if trace is not None and getattr(trace, "steps", None):
        label = "Counterexample" if r.got == Answer.VIOLATES else "Witness"
        out.append(f"{label} ({len(trace.steps) - 1} steps):")
        out.append("")
        out.append(format_trace(r.model, trace).rstrip())
    return "\n".join(out)


# ---------------------------------------------------------------- simulation (`tlacheck simulate`)

_ENDED = {
    "traces": "the --traces bound was reached",
    "time_limit": "the --time-limit ended the run",
    "interrupted": "interrupted",
    "memory_limit": "the --memory-limit was reached",
}

_NOT_A_PROOF = ("Simulation checks only the behaviours it runs: this is not a proof that the checks hold "
                "(`tlacheck check` explores every reachable state).")


def format_simulation(model: Model, result: Result, spec_path: str, full: bool = False) -> str:
    """The whole text report for `tlacheck simulate` (result.simulation set)."""
    sim = result.simulation
    out = [f"tlacheck {__version__}: simulating {spec_path} (spec {model.name}), seed {sim.seed}", ""]
    v = result.violation
    behaviours = f"{_n(sim.behaviours)} behaviour{'s' if sim.behaviours != 1 else ''}"
    if sim.ended == "no_initial_state":
        out.append("No initial state satisfies the state constraints: there is nothing to simulate.")
    elif v is None:
        if result.verdict == Verdict.INCOMPLETE:
            out.append(f"Stopped before the simulation ended ({_ENDED[sim.ended]}): no violation found in "
                       f"{behaviours}.")
        else:
            out.append(f"No violation found in {behaviours} of at most {_n(sim.depth_bound)} steps "
                       f"({_ENDED[sim.ended]}).")
        out.append(_NOT_A_PROOF)
    else:
        out.append(_headline(result, model))
        out += _found(sim)
        if v.trace.steps:
            n = len(v.trace.steps) - 1
            if result.verdict == Verdict.ERROR:
                out.append(f"The error occurred in the last state of this trace ({n} step{'s' if n != 1 else ''}):")
            else:
                out.append(f"Trace: {n} step{'s' if n != 1 else ''} after the initial state.")
            out.append("")
            out.append(format_trace(model, v.trace, full).rstrip())
    out.append("")
    out.append(format_simulation_summary(model, result))
    return "\n".join(out).rstrip() + "\n"


def _found(sim) -> list[str]:
    """Where the violation was found, and how its trace was shortened."""
    if sim.behaviours == 0:  # the initial states are checked before the first behaviour
        return ["Found among the initial states, before the first behaviour."]
    steps = f"{_n(sim.found_steps)} step{'s' if sim.found_steps != 1 else ''}"
    line = f"Found in behaviour {_n(sim.behaviours)}, after {steps}"
    if sim.shrunk_steps is None:
        return [line + "."]
    how = {"search": "a breadth-first search over the states the simulation expanded",
           "cycles": "cutting out the cycles (states it visited twice)",
           "instances": "a breadth-first search over the behaviours that take only its action instances",
           "steps": "dropping steps and taking the rest again"}[sim.shrink_method]
    return [f"{line}; shortened to {_n(sim.shrunk_steps)} steps by {how}. It is a real execution, not necessarily a "
            "shortest one."]


def format_simulation_summary(model: Model, result: Result) -> str:
    sim = result.simulation
    rate = sim.behaviours / result.elapsed_s if result.elapsed_s > 0 else 0.0
    bound = f"at most {_n(sim.traces_bound)}" if sim.traces_bound is not None else "no bound but the time"
    rows = [
        ("behaviours", f"{_n(sim.behaviours)} ({bound}, of at most {_n(sim.depth_bound)} steps each)"),
        ("states generated", _n(result.states_generated)),
        ("states visited", f"{_n(sim.states_visited)} ({_n(result.distinct_states)} distinct)"),
        ("longest behaviour", f"{_n(sim.longest)} step{'s' if sim.longest != 1 else ''}"),
        ("time", f"{result.elapsed_s:.2f} s ({_n(int(rate))} behaviours/s)"),
        ("seed", f"{sim.seed} (run again with --seed {sim.seed} for the same behaviours)"),
    ]
    if result.cache:  # what the transition caches answered (one process: docs/cli.md, --no-cache)
        rows.append(("transition cache", "; ".join(_cache_row(model, c) for c in result.cache)))
    out = ["Summary:"]
    out += [f"  {k:<17} {v}" for k, v in rows]
    out += _coverage(model, result, {"enabled": lambda c, _: c.enabled, "generated": lambda c, _: c.generated,
                                     "taken": lambda _, ai: sim.taken[ai], "distinct": lambda c, _: c.distinct})
    return "\n".join(out)


def add_simulation_json(data: dict, result: Result) -> dict:
    """`simulate --json`: the `check --json` object of the result (`data`), with the simulation's
    seed, statistics and per-action `taken` counts."""
    sim = result.simulation
    data["command"] = "simulate"
    data["seed"] = sim.seed
    for cov, taken in zip(data["coverage"].values(), sim.taken):
        cov["taken"] = taken
    data["simulation"] = {
        "behaviours": sim.behaviours,
        "states_visited": sim.states_visited,
        "longest_behaviour": sim.longest,
        "behaviours_per_s": round(sim.behaviours / result.elapsed_s, 1) if result.elapsed_s > 0 else None,
        "depth_bound": sim.depth_bound,
        "traces_bound": sim.traces_bound,
        "ended": sim.ended,
        "found_steps": sim.found_steps,
        "shrunk_steps": sim.shrunk_steps,
        "shrink_method": sim.shrink_method,
    }
    return data
