"""The exchanges of the bug report as scenarios: each holds some steps of the system until
others are done (system.Schedule), so that the event loop takes one interleaving, every time.

- `racy` (exchanges 1 and 5): DONE arrives after the task finished; the follow-on registers
  before the original run enqueues its stop notification. The buggy registry strands the answer.
- `stop_first` (exchange 4): the stop notification is enqueued before the follow-on registers;
  the follow-on's answer goes out in a second notification.
- `joined_turn` (exchange 2): DONE arrives while the turn is still running and joins it; the one
  stop notification carries the answer.
- `idle` (exchange 3): DONE arrives after the task stopped: a plain resume.
"""

from __future__ import annotations

import asyncio

from examples.notify_race.system import NotifyRaceSystem, Schedule

# step -> the step it waits for
SCENARIOS: dict[str, dict[str, str]] = {
    "racy": {"send_message": "task.finished", "gate.classifier": "follow_on.registered",
             "follow_on.completed": "notify.stop"},
    "stop_first": {"send_message": "task.finished", "follow_on.registered": "notify.stop"},
    "joined_turn": {"turn.final_round": "send_message"},
    "idle": {"send_message": "notify.stop"},
}


def run(scenario: str, recorder, fixed: bool = False) -> NotifyRaceSystem:
    """Run one scenario to its end with the buggy (or fixed) registry, logging to `recorder`;
    the system, for a look at its final state."""
    system_holder: list[NotifyRaceSystem] = []

    async def main() -> None:
        system = NotifyRaceSystem(recorder, fixed=fixed, schedule=Schedule(SCENARIOS[scenario]))
        system_holder.append(system)
        await system.run()

    asyncio.run(main())
    return system_holder[0]
