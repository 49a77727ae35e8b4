"""Marks: where real asyncio code takes one atomic step, so that a scheduler can order the steps.

    from tlacheck.conform import step

    async def original_run(self):
        await step("notify.stop")          # a scheduler may hold the task here
        self.runner = "stopped"            # the step itself: no await until it is recorded
        self.recorder.event("notify.stop", state={"runner_state": self.runner})

A mark names the step as the spec's `conform:` section names events (or by the action's own name),
with the arguments the code knows (`step("job.taken", {"worker_id": w})`). Outside a scheduler a
mark costs one context-variable lookup and does not yield to the event loop: instrumented code
runs as before. Under one (tlacheck.testing's Schedule and Steering, docs/testing.md), `await
step(...)` returns when the scheduler lets the task pass; the step ends when the code records its
event, reaches its next mark or returns.

The scheduler is found through a context variable, so it governs the tasks created inside it
(asyncio copies the context into every task it creates) and nothing else. Threads are not held.

Standard library only: importing it loads nothing else of tlacheck's.
"""

from __future__ import annotations

import contextvars
import functools
import inspect

# The controller of the marks in this context: anything with `async arrive(name, args)`.
_controller: contextvars.ContextVar = contextvars.ContextVar("tlacheck_marks", default=None)


async def step(name: str, args: dict | None = None) -> None:
    """Mark the start of the atomic step `name` (an event of the spec's `conform:` section, or an
    action's name), with some of its arguments in the code's words. Returns at once unless a
    scheduler governs this task; then when it lets the step begin."""
    controller = _controller.get()
    if controller is not None:
        await controller.arrive(name, dict(args or {}))


def atomic(name: str):
    """A decorator for a coroutine function that is one atomic step: it marks `name` before the body
    runs (the body must record its event before its first await, or have none)."""

    def decorate(fn):
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"@atomic({name!r}) decorates a coroutine function (async def), not {fn!r}")

        @functools.wraps(fn)
        async def marked(*args, **kwargs):
            await step(name)
            return await fn(*args, **kwargs)

        return marked

    return decorate


def govern(controller) -> None:
    """From now on, in the current context (and the tasks created from it), marks go to
    `controller` (None: marks pass). Run it in a copied context (`contextvars.copy_context().run`)
    to govern one task tree only."""
    _controller.set(controller)


def controller():
    """The controller governing the marks of the current context, or None."""
    return _controller.get()
