"""Runtime guards from the spec: an action's guard and the invariants as Python predicates over the
implementation's state, for code that wants to assert them before it commits a step.

    guards = Guards("specs/notify_race.spec", variant="Generation")
    if not guards.enabled("follow_on.registered", system.observed()):
        ...                                   # the verified model would not take this step here
    guards.check_invariants(system.observed())  # GuardFailed, naming the invariant and its line

The state is the implementation's, in its words (the spec's `conform:` section: `field` names,
`values` texts), as `tlacheck conform` reads a log line; it may leave variables out. A guard needs
only the variables that decide whether its action can be taken (`ir.guard_reads`: its `require`s,
its `with` sets, the conditions around them and what they were computed from), an invariant the
variables it reads; asking without one of them is a GuardError naming it. Everything else takes
any value of the right type (the spec's first initial state's), which cannot change the answer.

The predicates run the spec's compiled code: an action is enabled exactly when the model has a
step for it from that state (with the arguments given; any arguments otherwise), an event of
several steps when they can be taken one after the other. Cost: reading the state through the
mapping, then one evaluation of the action or invariant (tens of microseconds for a small spec).
"""

from __future__ import annotations

import os

from tlacheck.compile.model import Model
from tlacheck.conform.replayer import guard_cause
from tlacheck.core.errors import TlacheckError
from tlacheck.core.files import read_source
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.matcher import Explainer
from tlacheck.ir import nodes as ir
from tlacheck.output.logs import LogError, Mapping
from tlacheck.output.replay import Cause, quote_cause
from tlacheck.pipeline.driver import build_model
from tlacheck.testing import events as ev


class GuardError(TlacheckError, ValueError):
    """A guard or invariant asked about in a way the spec cannot answer: an unknown name, a state
    that lacks a variable it needs or does not fit the spec's types."""

    exit_code = 2


class GuardFailed(AssertionError):
    """`check` or `check_invariants` found the step not allowed, or an invariant false (the message
    says which, with the spec's line)."""


class Guards:
    """The guards and invariants of the spec at path `spec` (a variant, constants overridden)."""

    def __init__(self, spec, *, variant: str = "base", defines: dict | None = None):
        self.spec_path = os.fspath(spec)
        self.source = read_source(self.spec_path)
        self.model: Model = build_model(self.source, {k: str(v) for k, v in (defines or {}).items()}, variant)
        self.mapping = Mapping(self.model)
        reads = ir.function_reads(self.model.ir.functions)
        self.action_needs = tuple(ir.guard_reads(a, reads) for a in self.model.ir.actions)
        self.invariant_needs = {name: frozenset(self.model.invariant_reads[name]) for name, _ in self.model.invariants}
        self.filler = next(iter(self.model.init()))
        self._explainer = Explainer(self.model)

    # ---------------------------------------------------------------- the predicates
    def enabled(self, name: str, state: dict, args: dict | None = None) -> bool:
        """Whether the spec can take the action or event `name` (an action's name, or an event of
        the `conform:` section, several steps in a row) from `state`, with `args` (the code's
        names and values; those left out take any value)."""
        return bool(self._successors(name, state, args))

    def guard(self, name: str):
        """`enabled(name, ...)` as a predicate of the state (and the arguments, by keyword)."""
        self._event(name)

        def predicate(state: dict, **args) -> bool:
            return self.enabled(name, state, args)

        predicate.__name__ = predicate.__qualname__ = f"guard_of_{_identifier(name)}"
        predicate.__doc__ = f"Whether {self.model.name} can take `{name}` from the state (tlacheck.testing.Guards)."
        return predicate

    def invariant(self, name: str):
        """The invariant `name` as a predicate of the state."""
        functions = dict(self.model.invariants)
        if name not in functions:
            raise GuardError(f"the spec has no invariant `{name}`" + _did_you_mean(name, functions))
        needs = self.invariant_needs[name]
        fn = functions[name]

        def predicate(state: dict) -> bool:
            full = self._state(state, needs, f"invariant {name}")
            try:
                return bool(fn(full))
            except EVAL_FAILURES as fault:
                raise self.model.eval_error(fault) from None

        predicate.__name__ = predicate.__qualname__ = _identifier(name)
        predicate.__doc__ = f"The invariant {name} of {self.model.name} (tlacheck.testing.Guards)."
        return predicate

    def invariants(self) -> dict:
        """Every invariant, by name, as a predicate of the state."""
        return {name: self.invariant(name) for name, _ in self.model.invariants}

    def violated(self, state: dict) -> list[str]:
        """The invariants `state` breaks, in the spec's order."""
        return [name for name, p in self.invariants().items() if not p(state)]

    # ---------------------------------------------------------------- asserting
    def check(self, name: str, state: dict, args: dict | None = None) -> None:
        """Raise GuardFailed unless the spec can take `name` from `state`, saying which `require`
        stops it."""
        if self._successors(name, state, args):
            return
        steps, calls = self._calls(name, args)
        full = self._state(state, self._needs(steps), f"the guard of {name}")
        lines = [f"{self.model.name} cannot take `{name}` from this state:"]
        states = [full]
        for k, call in enumerate(calls):
            info = self.model.action_info[call.action]
            nxt = [t for s in states for a, t in self.model.actions[call.action](s) if call.fits(a)]
            if not nxt:
                if len(calls) > 1:
                    lines.append(f"  step {k + 1} of the event, {info.name}:")
                failed = [g for s in states for g in self._explainer.paths(call.action, s, call)[0]]
                cause = guard_cause(self._explainer, failed) if failed else Cause(
                    f"{info.name} has no instance with these arguments", info.span)
                lines += ["  " + line for line in quote_cause(cause, {self.source.name: self.source})]
                break
            states = nxt
        raise GuardFailed("\n".join(lines))

    def check_invariants(self, state: dict) -> None:
        """Raise GuardFailed if `state` breaks an invariant (each one broken, with its line)."""
        broken = self.violated(state)
        if broken:
            lines = [f"{self.model.name}: the state breaks {', '.join(broken)}:"]
            for name in broken:
                span = self.model.span_of("invariant", name)
                lines += ["  " + line for line in quote_cause(Cause(f"invariant {name}", span),
                                                            {self.source.name: self.source})]
            raise GuardFailed("\n".join(lines))

    # ---------------------------------------------------------------- the state
    def needs(self, name: str) -> tuple[str, ...]:
        """The spec's variables the guard of `name` (an action or event) or the invariant `name`
        reads, in declaration order: what the state given must hold."""
        if name in self.invariant_needs:
            slots = self.invariant_needs[name]
        else:
            slots = self._needs(self._event(name))
        return tuple(n for i, n in enumerate(self.model.var_names) if i in slots)

    def _needs(self, steps) -> frozenset:
        return frozenset().union(*(self.action_needs[a] for a, _ in steps))

    def _event(self, name: str):
        steps = self.mapping.events.get(name)
        if not steps:
            raise GuardError(f"`{name}` is no action of the spec nor an event of its `conform:` section"
                             + _did_you_mean(name, [n for n, s in self.mapping.events.items() if s]))
        return steps

    def _calls(self, name: str, args: dict | None):
        steps = self._event(name)
        try:
            event = ev.read_event(self.mapping, f"the arguments of {name}", {"action": name, "args": dict(args or {})})
        except LogError as exc:
            raise GuardError(f"{name}: {exc.diagnostic.message}") from None
        return steps, event.calls

    def _successors(self, name: str, state: dict, args: dict | None) -> list[tuple]:
        steps, calls = self._calls(name, args)
        states = [self._state(state, self._needs(steps), f"the guard of {name}")]
        try:
            for call in calls:
                states = [t for s in states for a, t in self.model.actions[call.action](s) if call.fits(a)]
        except EVAL_FAILURES as fault:
            raise self.model.eval_error(fault) from None
        return states

    def _state(self, state: dict, needs: frozenset, what: str) -> tuple:
        """The implementation's state as a full state of the spec: the variables it gives, the
        filler's values for the others; a GuardError if one of `needs` is missing."""
        if not isinstance(state, dict):
            raise GuardError(f"{what}: the state must be a dict (the implementation's names), not "
                             f"{type(state).__name__}")
        try:
            given = dict(ev.read_state(self.mapping, "the state", state))
        except LogError as exc:
            d = exc.diagnostic
            raise GuardError(f"{what}: {d.message}" + (f" ({d.hint})" if d.hint else "")) from None
        missing = [self.model.var_names[i] for i in sorted(needs) if i not in given]
        if missing:
            raise GuardError(f"{what} reads {', '.join(f'`{n}`' for n in missing)}, which the state does not give")
        return tuple(given.get(i, v) for i, v in enumerate(self.filler))


def _identifier(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _did_you_mean(name: str, known) -> str:
    from tlacheck.core.errors import suggest

    close = suggest(name, known)
    return f" (did you mean `{close}`?)" if close else ""
