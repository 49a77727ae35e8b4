"""The pytest bridge: each generated behaviour of the spec run on the implementation, step by step.

A user writes a *driver*: one method per spec action, named as the action and taking its
parameters by name, or per event of the spec's `conform:` section (`@handles("job.taken")`, taking
the event's arguments as the code names them); and `state()`, which reads the implementation's
state as the spec's variables, in the implementation's words (the section's `field` names and
`values` texts, as `tlacheck conform` reads a log line; variables it leaves out are not compared).
Any of its methods may be `async def`: a behaviour then runs in one event loop, from `setup()` to
`teardown()`.

    @pytest.mark.parametrize("behaviour", behaviours("specs/jobs.spec"), ids=str)
    def test_jobs(behaviour):
        run_behaviour(JobsDriver(), behaviour)

`run_behaviour` calls `setup()`, compares `state()` with the behaviour's initial state, then takes
the steps: the longest event the driver has a method for at each point (`follow_on.completed` for
FollowOnAnswers then FollowOnNotifies), its method called with the steps' arguments, and `state()`
compared with the spec's state after them. The first difference fails the test (BehaviourFailed, an
AssertionError) with the step, the spec's source line of its action, the per-entry diff, and the
steps before it. `StepDriver` takes every event without a method of its own by letting real asyncio
code pass its mark (`await step(...)`, testing/steering.py): such a driver is `start()` and
`state()` only.

`behaviours(spec, ...)` gives the behaviours `tlacheck tests` would write (generated when asked, once
per spec and options), or reads those it wrote into a folder.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from dataclasses import dataclass, field
from functools import lru_cache

from tlacheck.compile.model import Model
from tlacheck.core.errors import TlacheckError
from tlacheck.core.files import read_source
from tlacheck.core.result import Trace
from tlacheck.output.logs import LogError, Mapping
from tlacheck.output.replay import Cause, quote_cause, recorded_differences
from tlacheck.pipeline.driver import build_model
from tlacheck.testing import events as ev
from tlacheck.testing.generate import Cover, generate
from tlacheck.testing.steering import Ended, Steering
from tlacheck.testing.suite import read_suite


class BehaviourFailed(AssertionError):
    """The implementation did not do what the behaviour does (the message says where and how)."""


class DriverError(TypeError):
    """A driver that cannot take a behaviour: no method for one of its steps, a `state()` that does
    not fit the spec's variables (the message says which and what to do)."""


def handles(event: str):
    """Decorates a driver method that takes the event `event` of the spec's `conform:` section (or
    the action of that name)."""

    def mark(fn):
        fn._tlacheck_event = event
        return fn

    return mark


class Driver:
    """The implementation under test, one method per action or event (module docstring). Subclass
    it; `setup()` and `teardown()` run around each behaviour; `state()` is required."""

    def setup(self):
        pass

    def teardown(self):
        pass

    def state(self) -> dict:
        raise NotImplementedError("a driver reads the implementation's state: define state()")

    def handler(self, event: ev.EventSteps):
        """The bound method of this driver's own that takes `event`, or None."""
        for klass in type(self).__mro__:
            for name, fn in vars(klass).items():
                if getattr(fn, "_tlacheck_event", None) == event.name:
                    return getattr(self, name)
        if event.own and event.name.isidentifier() and not event.name.startswith("_"):
            fn = getattr(self, event.name, None)
            if callable(fn) and event.name not in vars(Driver):
                return fn
        return None

    def is_async(self) -> bool:
        """Whether any of its methods is `async def` (then a behaviour runs in one event loop)."""
        return any(inspect.iscoroutinefunction(f) for klass in type(self).__mro__ for f in vars(klass).values())


class StepDriver(Driver):
    """A driver for asyncio code whose steps are marked (`await step(...)`): `start()` returns the
    coroutine of the program, run under a Steering for each behaviour; every event without a
    method of its own is taken by letting the task held at its mark take its step. `patience`:
    seconds to wait, once nothing can run, for a timer or I/O (testing/steering.py)."""

    patience = 1.0
    recorder = None  # the conformance Recorder the program writes to, if any: a step ends when it is recorded

    def start(self):
        raise NotImplementedError("a StepDriver starts the program: define start(), returning a coroutine")

    async def setup(self):
        self.steering = Steering(self.patience)
        self.program = self.steering.start(self.start())
        if self.recorder is not None:
            self.recorder.sinks.append(self.steering.line)
        await self.steering.settle()

    async def teardown(self):
        self.steering.stop()
        await asyncio.gather(self.program, return_exceptions=True)
        if self.recorder is not None:
            self.recorder.sinks.remove(self.steering.line)

    def fallback(self, event: ev.EventSteps):
        """What takes `event` when the driver has no method of its own for it: its mark."""
        async def take(**args):
            await self.take(event.name, args)

        return take

    async def take(self, name: str, args: dict) -> None:
        """Let the task held at the mark `name` (with arguments agreeing with `args`) take its step."""
        held = await self.steering.wait_for(lambda h: h.name == name and all(h.args.get(k, v) == v
                                                                             for k, v in args.items()))
        if held is None:
            raise DriverError(f"no task of the program reaches the mark `{name}` (nothing else can run):\n  "
                              + "\n  ".join(self.steering.whereabouts()))
        passage = await self.steering.let_pass(held)
        if passage.ended is Ended.BLOCKED:
            raise DriverError(f"the step at the mark `{name}` began and never ended:\n  "
                              + "\n  ".join(self.steering.whereabouts()))
        if passage.ended is Ended.RAISED:
            raise passage.error


@dataclass(frozen=True)
class Behaviour:
    """One behaviour of a spec to run on an implementation: its name, the trace, the model."""

    name: str
    trace: Trace = field(repr=False)
    model: Model = field(repr=False)

    def __str__(self) -> str:
        return self.name

    def run(self, driver: Driver) -> None:
        run_behaviour(driver, self)


def behaviours(spec, *, variant: str = "base", defines: dict | None = None, cover: str = "actions",
               folder=None, max_behaviours: int | None = None) -> list[Behaviour]:
    """The behaviours of the spec at path `spec` to run (`ids=str` names them in pytest): those
    `tlacheck tests` chooses (`cover`, `max_behaviours`), or, given `folder`, those it wrote there."""
    key = (os.fspath(spec), variant, tuple(sorted((defines or {}).items())))
    model = _model(*key)
    if folder is not None:
        return [Behaviour(f"{s.name}", s.trace, model) for s in read_suite(os.fspath(folder), model)]
    suite = _suite(key, cover, max_behaviours)
    width = len(str(len(suite.behaviours)))
    return [Behaviour(f"{model.name}-{variant}-{i + 1:0{width}d}", t, model) for i, t in enumerate(suite.behaviours)]


@lru_cache(maxsize=32)
def _model(spec: str, variant: str, defines: tuple) -> Model:
    return build_model(read_source(spec), {k: str(v) for k, v in defines}, variant)


@lru_cache(maxsize=32)
def _suite(key: tuple, cover: str, max_behaviours: int | None):
    return generate(_model(*key), Cover(cover), max_behaviours)


# ---------------------------------------------------------------- running one

def run_behaviour(driver: Driver, behaviour: Behaviour) -> None:
    """Run `behaviour` on `driver` (module docstring); raises BehaviourFailed at the first step whose
    state differs, DriverError when the driver cannot take a step."""
    __tracebackhide__ = True  # pytest shows the message, not this frame
    runner = _Runner(driver, behaviour)
    try:
        if driver.is_async():
            asyncio.run(runner.run_async())
        else:
            runner.run_sync()
    except BehaviourFailed as exc:  # without the frames of the event loop and the runner
        raise BehaviourFailed(str(exc)) from None


class _Runner:
    def __init__(self, driver: Driver, behaviour: Behaviour):
        self.driver = driver
        self.behaviour = behaviour
        self.model = behaviour.model
        self.mapping = Mapping(self.model)
        self.plan = self._plan()

    def _plan(self) -> list[tuple[int, int, ev.EventSteps, object]]:
        """(first step, last step, event, the driver's method) per event of the behaviour."""
        steps = self.behaviour.trace.steps
        actions = [s.action for s in steps]
        all_events = ev.events(self.mapping)
        own = {e.name: self.driver.handler(e) for e in all_events}
        bound = ev.bound(self.mapping)[0]
        marked = isinstance(self.driver, StepDriver)

        def fallback(e: ev.EventSteps):  # a mark, unless the code never takes that action alone
            return self.driver.fallback(e) if marked and not (e.own and e.actions[0] in bound) else None

        methods = {e.name: own[e.name] or fallback(e) for e in all_events}
        out = []
        i = 1
        while i < len(steps):
            found = ev.group(all_events, actions, i, lambda e: methods[e.name] is not None,
                             lambda e: own[e.name] is not None)
            if found is None:
                name = self.model.action_info[actions[i]].name
                events = [f"`{e.name}`" for e in all_events if actions[i] in e.actions and not e.own]
                raise DriverError(f"{type(self.driver).__name__} has no method for {name} (state {i + 1} of "
                                  f"{self.behaviour.name})" + (f", nor for {' or '.join(events)}" if events else "")
                                  + f": define `def {name}(self, ...)`, or `@handles(...)` on the method that "
                                  "takes the event")
            out.append((i, i + len(found.actions) - 1, found, methods[found.name]))
            i += len(found.actions)
        return out

    def _arguments(self, first: int, last: int, event: ev.EventSteps) -> dict:
        return ev.args_in_code(self.mapping, event, self.behaviour.trace.steps[first:last + 1])

    def run_sync(self) -> None:
        __tracebackhide__ = True
        d = self.driver
        d.setup()
        try:
            self._compare(d.state(), None)
            for first, last, event, method in self.plan:
                method(**self._arguments(first, last, event))
                self._compare(d.state(), (first, last, event))
        finally:
            d.teardown()

    async def run_async(self) -> None:
        __tracebackhide__ = True
        d = self.driver
        await _maybe(d.setup())
        try:
            self._compare(await _maybe(d.state()), None)
            for first, last, event, method in self.plan:
                await _maybe(method(**self._arguments(first, last, event)))
                self._compare(await _maybe(d.state()), (first, last, event))
        finally:
            await _maybe(d.teardown())

    def _compare(self, observed, where) -> None:
        __tracebackhide__ = True
        if not isinstance(observed, dict):
            raise DriverError(f"{type(self.driver).__name__}.state() returned {type(observed).__name__}, not a dict of "
                              "the implementation's state (names as the spec's `conform:` section maps them)")
        try:
            recorded = ev.read_state(self.mapping, f"{type(self.driver).__name__}.state()", observed)
        except LogError as exc:
            d = exc.diagnostic
            raise DriverError(f"{type(self.driver).__name__}.state(): {d.message}" + (f" ({d.hint})" if d.hint else "")) \
                from None
        steps = self.behaviour.trace.steps
        last = 0 if where is None else where[1]
        differences = recorded_differences(self.model, steps[last].state, recorded)
        if differences:
            raise BehaviourFailed(self._message(where, differences))

    def _message(self, where, differences) -> str:
        model, steps = self.model, self.behaviour.trace.steps
        name = f"{self.behaviour.name} ({model.name}, {os.fspath(model.file)})"
        out = []
        if where is None:
            out.append(f"{name}: the implementation's initial state differs from the spec's (state 1)")
        else:
            first, last, event = where
            labels = ", ".join(model.step_label(s.action, s.args) for s in steps[first:last + 1])
            states = f"state {last + 1}" if first == last else f"states {first + 1}-{last + 1}"
            via = f", event `{event.name}`" if not event.own else ""
            out.append(f"{name}: after {states} ({labels}{via}) the implementation's state differs from the spec's")
            info = model.action_info[steps[last].action]
            sources = _sources(info.span.file)
            out += ["  " + line for line in quote_cause(Cause(f"{info.name}, the step's action", info.span), sources)]
        rows = [(p, a, b) for _, p, a, b in differences]
        width = max(len(p) for p, _, _ in rows + [("variable", "", "")])
        impl = max(len(a) for _, a, _ in rows + [("", "implementation", "")])
        out.append(f"  {'variable':<{width}}  {'implementation':<{impl}}  spec")
        out += [f"  {p:<{width}}  {a:<{impl}}  {b}" for p, a, b in rows]
        if where is not None:
            out.append("  The behaviour up to there:")
            for k, s in enumerate(steps[:where[1] + 1]):
                label = "initial state" if s.action is None else model.step_label(s.action, s.args)
                out.append(f"    state {k + 1}: {label}")
        return "\n".join(out)


def _sources(path: str) -> dict:
    try:
        source = read_source(path)
    except TlacheckError:  # the message then has no excerpt
        return {}
    return {source.name: source}


async def _maybe(value):
    return await value if inspect.isawaitable(value) else value
