"""The benchmark models, their expected state counts and their peers."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = Path(__file__).resolve().parent / "models"
PEERS_DIR = Path(__file__).resolve().parent / "peers"
# The TLA+ models with TLC's recorded results (../shared/reference/tlaplus-examples): beside the
# project's checkout, or beside the folder that holds it (a worktree in ../wt/BRANCH)
REFERENCE = next((p / "shared" / "reference" / "tlaplus-examples" for p in ROOT.parents
                  if (p / "shared" / "reference").is_dir()), ROOT.parent / "shared" / "reference" / "tlaplus-examples")


@dataclass(frozen=True)
class Benchmark:
    name: str
    spec: Path
    overrides: dict = field(default_factory=dict)
    check_deadlock: bool = True
    distinct: int = 0  # asserted: a benchmark that explores another state space is a bug
    generated: int = 0
    tlc: dict | None = None  # TwoPhase: {"RM": "{r1, ...}"} for the TLA+ original
    spin: tuple[str, dict] | None = None  # Promela file in peers/ and its -D defines
    tla: str | None = None  # a TLA+ module in peers/, run by TLC with the .cfg of the same name
    variant: str = "base"  # the spec's variant that is checked
    # Only these invariants, no reachable checks or temporal properties (what the peer's cfg checks);
    # None: every check of the spec.
    invariants: tuple[str, ...] | None = None


def _rms(n: int) -> str:
    return "{" + ", ".join(f"r{i}" for i in range(1, n + 1)) + "}"


TWO_PHASE = ROOT / "specs" / "classic" / "two_phase.spec"

BENCHMARKS = [
    # TLC's counts for TwoPhase.tla (quoted in issue 7, reproduced by TLC 2.15 here).
    Benchmark("two_phase_5", TWO_PHASE, {"RM": _rms(5)}, True, 8_832, 58_146, tlc={"RM": _rms(5)}),
    Benchmark("two_phase_6", TWO_PHASE, {"RM": _rms(6)}, True, 50_816, 402_306, tlc={"RM": _rms(6)}),
    Benchmark("two_phase_7", TWO_PHASE, {"RM": _rms(7)}, True, 296_448, 2_744_706, tlc={"RM": _rms(7)}),
    # 2^16 * 7 states, 16 successors each; SPIN finds the same 458,752 states and 7,340,033 transitions.
    Benchmark("flags_16", MODELS_DIR / "flags.spec", {"N": "16"}, True, 458_752, 7_340_033,
              spin=("flags.pml", {"N": "16"})),
    # Final states (every task stopped, the queue read) have no successor: no deadlock check, SPIN -E.
    Benchmark("notify_race_4", MODELS_DIR / "notify_race.spec", {"Tasks": "{t1, t2, t3, t4}"}, False,
              926_857, 3_305_201, spin=("notify_race.pml", {"T": "4"})),
    Benchmark("mailboxes_3", MODELS_DIR / "mailboxes.spec", {"Clients": "{c1, c2, c3}"}, False,
              662_100, 2_578_234),
    # The three seed models scaled up (docs/performance.md, "The seed models scaled up"), each beside
    # its TLA+ translation in peers/: TLC 2.15 finds the same distinct and generated states.
    # specs/notify_race.spec with three tasks (its base, the race; SameResultString holds).
    Benchmark("notify_race_seed_3", MODELS_DIR / "notify_race_scaled.spec", {"Tasks": "{t1, t2, t3}"}, True,
              143_979, 683_830, tla="notify_race_scaled.tla"),
    # specs/fork_teammate.spec with a lead and five teammates, its variant Fix1 (both invariants hold).
    Benchmark("fork_teammate_fix1_5", MODELS_DIR / "fork_teammate_scaled.spec",
              {"Agent": "{lead, tm1, tm2, tm3, tm4, tm5}"}, True, 644_204, 6_910_553,
              tla="fork_teammate_scaled.tla", variant="Fix1"),
    # specs/agent_routing.spec itself, five agents (the main session and four slots), its depth 2.
    Benchmark("agent_routing_5", ROOT / "specs" / "agent_routing.spec",
              {"AGENT": "{main, a1, a2, a3, a4}"}, True, 184_209, 5_453_346,
              tla="agent_routing.tla",
              invariants=("NoBackgroundFromTeammate", "NoTeammateFromTeammate", "NoForkFromFork")),
]


def by_name(names: list[str] | None) -> list[Benchmark]:
    if not names:
        return list(BENCHMARKS)
    known = {b.name: b for b in BENCHMARKS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[n] for n in names]
