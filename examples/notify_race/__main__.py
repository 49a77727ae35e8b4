"""`python -m examples.notify_race SCENARIO LOG [--fixed]`: run a scenario, write its log (NDJSON).

Then check it: `tlacheck conform specs/notify_race.spec LOG` (the buggy code against the base
spec), or `--variant Generation` (the fix).
"""

from __future__ import annotations

import argparse

from examples.notify_race.scenarios import SCENARIOS, run
from tlacheck.conform import Recorder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.notify_race", description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("log", help="the NDJSON log to write")
    parser.add_argument("--fixed", action="store_true", help="the fixed registry (one claim per registration)")
    args = parser.parse_args(argv)
    with Recorder(args.log) as recorder:
        system = run(args.scenario, recorder, fixed=args.fixed)
    told = "the answer was notified" if "answer" in system.delivered else "the answer was never notified"
    print(f"{args.scenario} ({'fixed' if args.fixed else 'buggy'}): {system.notifications} notification(s), {told}; "
          f"wrote {args.log}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
