"""`python -m examples.notify_race SCENARIO LOG [--fixed]`: run a scenario, write its log (NDJSON).

Then check it: `tlacheck conform specs/notify_race.spec LOG` (the buggy code against the base
spec), or `--variant Generation` (the fix). The scenario `counterexample` runs the code under the
schedule of AnswerNotified's counterexample (tlacheck.testing.Schedule, docs/testing.md) instead
of the exchanges' asyncio events, and prints how the code followed it.
"""

from __future__ import annotations

import argparse
import os

from examples.notify_race.scenarios import SCENARIOS, run
from examples.notify_race.system import NotifyRaceSystem
from tlacheck.conform import Recorder

SPEC = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "specs", "notify_race.spec"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.notify_race", description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=sorted(SCENARIOS) + ["counterexample"])
    parser.add_argument("log", help="the NDJSON log to write")
    parser.add_argument("--fixed", action="store_true", help="the fixed registry (one claim per registration)")
    args = parser.parse_args(argv)
    with Recorder(args.log) as recorder:
        if args.scenario == "counterexample":
            system = _counterexample(recorder, args.fixed)
        else:
            system = run(args.scenario, recorder, fixed=args.fixed)
    notified = "answer" in system.delivered or any(n["reply"] == "answer" for n in system.queue)
    told = "the answer was notified" if notified else "the answer was never notified"
    print(f"{args.scenario} ({'fixed' if args.fixed else 'buggy'}): {system.notifications} notification(s), {told}; "
          f"wrote {args.log}")
    return 0


def _counterexample(recorder, fixed: bool) -> NotifyRaceSystem:
    from tlacheck.testing import Schedule

    shown = os.path.relpath(SPEC)
    schedule = Schedule.counterexample(SPEC if shown.startswith("..") else shown, "AnswerNotified")
    made = []

    def program():
        made.append(NotifyRaceSystem(recorder, fixed=fixed))
        return made[0].run()

    print(schedule.run(program, recorder=recorder).text())
    return made[0]


if __name__ == "__main__":
    raise SystemExit(main())
