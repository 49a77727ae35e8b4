"""The notify race's asyncio code driven by the spec's behaviours (tlacheck's pytest bridge,
docs/testing.md).

`RegistryDriver` is a step driver: the program's tasks (the original run, the DONE send, the
follow-on listener) run under tlacheck's steering, and each step of a behaviour lets the task held
at that step's mark take it (`turn.final_round`, ..., `follow_on.completed` for FollowOnAnswers
then FollowOnNotifies, as the spec's `conform:` section names them). The parent is the driver
itself: it reads a notification when the behaviour says `ParentReads`, and does nothing for
`ParentWorks`. `state()` is what the code has, in its own words (`NotifyRaceSystem.observed`):
the run's state, the follow-on's, the DONE send, the registry record's tool-use id and generation,
the parent's queue and what it read. The registries keep their claims differently (one flag per
record, or a set of generations), so the claims themselves are not compared; what the parent sees
is.

    @pytest.mark.parametrize("behaviour", behaviours("specs/notify_race.spec", variant="Generation"), ids=str)
    def test_the_fixed_registry(behaviour):
        run_behaviour(RegistryDriver(fixed=True), behaviour)
"""

from __future__ import annotations

import io

from examples.notify_race.system import NotifyRaceSystem
from tlacheck.conform import Recorder
from tlacheck.testing import StepDriver


class RegistryDriver(StepDriver):
    """The example's registry, buggy (`fixed=False`) or fixed, as the spec's behaviours drive it."""

    patience = 0.0  # pure asyncio: nothing waits on a clock

    def __init__(self, fixed: bool):
        self.fixed = fixed

    def start(self):
        self.recorder = Recorder(io.StringIO())
        self.system = NotifyRaceSystem(self.recorder, fixed=self.fixed)
        return self.system.parts()

    def ParentReads(self):
        self.system.parent_read()

    def ParentWorks(self):
        pass  # the parent session keeps working: nothing the registry sees

    def state(self) -> dict:
        return self.system.observed()
