"""From the spec to the code: generated tests, the pytest bridge, schedules and runtime guards
(docs/testing.md).

- `tlacheck tests SPEC --out DIR` (testing/generate.py): behaviours of the spec chosen to cover
  every action (or every changed variable, or every transition), written as ITF;
- `Driver`, `behaviours`, `run_behaviour` (testing/bridge.py): each behaviour run step by step on
  the implementation, which must reach the spec's states;
- `Schedule` (testing/schedule.py, on testing/steering.py): a trace, a counterexample say, made the
  order in which real asyncio code takes its marked steps (`tlacheck.conform.step`);
- `Guards` (testing/guards.py): an action's guard and the invariants as Python predicates over the
  implementation's state.

Everything reads the implementation's names through the spec's `conform:` section, as `tlacheck
conform` does. Importing this package loads nothing until one of these names is asked for.
"""

_WHERE = {"Schedule": "schedule", "Outcome": "schedule", "ScheduleError": "schedule", "Steering": "steering",
          "Driver": "bridge", "StepDriver": "bridge", "handles": "bridge", "behaviours": "bridge",
          "run_behaviour": "bridge", "BehaviourFailed": "bridge", "Behaviour": "bridge",
          "Guards": "guards", "GuardFailed": "guards"}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"tlacheck.testing.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'tlacheck.testing' has no attribute {name!r}")
