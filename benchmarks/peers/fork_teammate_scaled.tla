---------------------------- MODULE fork_teammate_scaled ----------------------------
(* benchmarks/models/fork_teammate_scaled.spec, variant Fix1 (the seed's fix 1), in  *)
(* TLA+, action for action: the seed specs/fork_teammate.spec with a lead and a      *)
(* constant set of in-process teammates, each agent dispatching one subagent, named  *)
(* by the agent. The decision logic is the spec's defs, with Fix1's async_launch.    *)
(* The enums are strings, and run_in_background, which the spec passes as bool?      *)
(* (none, false or true), is one of "none", "false", "true".                         *)
(* Run with -workers 1: TLC finds the same distinct and generated states as          *)
(* `tlacheck check --variant Fix1` (docs/performance.md).                            *)
EXTENDS Naturals

CONSTANTS Agent, Lead, FORK_ENV, ROLLOUT_GATE, NON_INTERACTIVE, COORDINATOR_MODE,
          DISABLE_BACKGROUND_TASKS, INTERNAL_BUILD, TEAMMATE_RUN_IN_BACKGROUND

VARIABLES phase, running, completed, background, owner, queue, heard, guardError,
          passedFalse, nudged

vars == <<phase, running, completed, background, owner, queue, heard, guardError,
          passedFalse, nudged>>

\* ================================================================ the decision logic

guard_denies(isTeammate, rib, bg) == isTeammate /\ (rib = "true" \/ bg)

\* Fix1: the fork and coordinator disjuncts are scoped to non-teammates.
async_launch(isRemote, rib, bg, coordinatorMode, forkSubagentsEnabled, isTeammate,
             disableBackgroundTasks) ==
    \/ isRemote
    \/ /\ \/ rib = "true" \/ bg
          \/ (coordinatorMode /\ ~isTeammate) \/ (forkSubagentsEnabled /\ ~isTeammate)
          \/ (~isTeammate /\ rib # "false")
       /\ ~disableBackgroundTasks

fork_subagents_enabled(coordinatorMode, forkEnv, nonInteractive, rolloutGate) ==
    IF coordinatorMode THEN FALSE
    ELSE IF forkEnv = "Truthy" THEN TRUE
    ELSE IF forkEnv = "Falsy" THEN FALSE
    ELSE IF nonInteractive THEN FALSE
    ELSE rolloutGate

launches_async(isRemote, rib, bg, coordinatorMode, forkEnv, nonInteractive, rolloutGate,
               isTeammate, disableBackgroundTasks) ==
    async_launch(isRemote, rib, bg, coordinatorMode,
                 fork_subagents_enabled(coordinatorMode, forkEnv, nonInteractive, rolloutGate),
                 isTeammate, disableBackgroundTasks)

derive_owner_succeeds(isTeammate) ==
    LET keyedByAgentId == ~isTeammate
        localAgentType == ~isTeammate
    IN keyedByAgentId /\ localAgentType

completion_owner(isTeammate) ==
    IF derive_owner_succeeds(isTeammate) \/ ~isTeammate THEN "Spawner" ELSE "MainSession"

\* ================================================================ the session

teammates == Agent \ {Lead}

Init ==
    /\ phase = [a \in Agent |-> IF a = Lead THEN "Working" ELSE "NotSpawned"]
    /\ running = {}
    /\ completed = {}
    /\ background = {}
    /\ owner = [t \in {} |-> Lead]
    /\ queue = [a \in Agent |-> {}]
    /\ heard = [a \in Agent |-> {}]
    /\ guardError = [m \in teammates |-> FALSE]
    /\ passedFalse = [m \in teammates |-> FALSE]
    /\ nudged = [m \in teammates |-> FALSE]

spawner(t) == t

remote_choices == IF INTERNAL_BUILD THEN {FALSE, TRUE} ELSE {FALSE}

goes_async(a, rib, bg, isRemote) ==
    launches_async(isRemote, rib, bg, COORDINATOR_MODE, FORK_ENV, NON_INTERACTIVE, ROLLOUT_GATE,
                   a # Lead, DISABLE_BACKGROUND_TASKS)

stamped_owner(a) == IF completion_owner(a # Lead) = "Spawner" THEN a ELSE Lead

recipient(t) == IF t \in background THEN {owner[t]} ELSE {spawner(t)}

launched(t) == t \in running \/ t \in completed

stamp(t, a) == [u \in DOMAIN owner \cup {t} |-> IF u = t THEN a ELSE owner[u]]

\* ---------------------------------------------------------------- the lead (main session)

SpawnTeammate(m) ==
    /\ phase[Lead] = "Working" /\ phase[m] = "NotSpawned"
    /\ phase' = [phase EXCEPT ![m] = "Working"]
    /\ UNCHANGED <<running, completed, background, owner, queue, heard, guardError, passedFalse,
                   nudged>>

LeadDispatches(rib, bg) ==
    /\ phase[Lead] = "Working" /\ ~launched(Lead)
    /\ running' = running \cup {Lead}
    /\ IF goes_async(Lead, rib, bg, FALSE)
         THEN /\ background' = background \cup {Lead}
              /\ owner' = stamp(Lead, stamped_owner(Lead))
              /\ UNCHANGED phase
         ELSE /\ phase' = [phase EXCEPT ![Lead] = "InlineWait"]
              /\ UNCHANGED <<background, owner>>
    /\ UNCHANGED <<completed, queue, heard, guardError, passedFalse, nudged>>

LeadNudgesTeammate(m) ==
    /\ phase[Lead] = "Working" /\ phase[m] = "Yielded"
    /\ m \in heard[Lead]
    /\ nudged' = [nudged EXCEPT ![m] = TRUE]
    /\ heard' = [heard EXCEPT ![m] = @ \cup {m}]
    /\ phase' = [phase EXCEPT ![m] = "Working"]
    /\ UNCHANGED <<running, completed, background, owner, queue, guardError, passedFalse>>

LeadWorks == UNCHANGED vars

\* ---------------------------------------------------------------- the teammates

TeammateDispatches(m, rib, bg, remote) ==
    /\ phase[m] = "Working" /\ ~launched(m)
    /\ IF guard_denies(TRUE, rib, bg)
         THEN /\ guardError' = [guardError EXCEPT ![m] = TRUE]
              /\ UNCHANGED <<running, passedFalse, background, owner, phase>>
         ELSE /\ running' = running \cup {m}
              /\ passedFalse' = [passedFalse EXCEPT ![m] = (rib = "false")]
              /\ IF goes_async(m, rib, bg, remote)
                   THEN /\ background' = background \cup {m}
                        /\ owner' = stamp(m, stamped_owner(m))
                        /\ phase' = [phase EXCEPT ![m] = "Yielded"]
                   ELSE /\ phase' = [phase EXCEPT ![m] = "InlineWait"]
                        /\ UNCHANGED <<background, owner>>
              /\ UNCHANGED guardError
    /\ UNCHANGED <<completed, queue, heard, nudged>>

\* ---------------------------------------------------------------- the subagents

TaskCompletes(t, to) ==
    /\ t \in running
    /\ running' = running \ {t}
    /\ completed' = completed \cup {t}
    /\ IF t \in background
         THEN /\ queue' = [queue EXCEPT ![to] = @ \cup {t}]
              /\ UNCHANGED <<heard, phase>>
         ELSE /\ heard' = [heard EXCEPT ![to] = @ \cup {t}]
              /\ phase' = [phase EXCEPT ![to] = "Working"]
              /\ UNCHANGED queue
    /\ UNCHANGED <<background, owner, guardError, passedFalse, nudged>>

ReceivesNotification(a, t) ==
    /\ phase[a] = "Working" \/ phase[a] = "Yielded"
    /\ queue' = [queue EXCEPT ![a] = @ \ {t}]
    /\ heard' = [heard EXCEPT ![a] = @ \cup {t}]
    /\ phase' = [phase EXCEPT ![a] = "Working"]
    /\ UNCHANGED <<running, completed, background, owner, guardError, passedFalse, nudged>>

Next ==
    \/ \E m \in teammates: SpawnTeammate(m)
    \/ \E rib \in {"none", "false", "true"}, bg \in BOOLEAN: LeadDispatches(rib, bg)
    \/ \E m \in teammates: LeadNudgesTeammate(m)
    \/ LeadWorks
    \/ \E m \in teammates, rib \in TEAMMATE_RUN_IN_BACKGROUND, bg \in BOOLEAN, remote \in remote_choices:
         TeammateDispatches(m, rib, bg, remote)
    \/ \E t \in Agent: \E to \in recipient(t): TaskCompletes(t, to)
    \/ \E a \in Agent: \E t \in queue[a]: ReceivesNotification(a, t)

\* ---------------------------------------------------------------- checks

TeammateSubagentsForeground == \A m \in teammates: m \notin background
OwnerIsSpawner == \A t \in DOMAIN owner: owner[t] = spawner(t)
=============================================================================
