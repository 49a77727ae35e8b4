------------------------------- MODULE agent_routing -------------------------------
(* specs/agent_routing.spec's state machine (its base, without variants) in TLA+:  *)
(* the routing functions, the three guards, Spawn, SpawnRejected and Work, and the *)
(* three guard invariants. The enums are strings, and run_in_background, which the *)
(* spec passes as bool? (none, false or true), is one of "none", "false", "true".  *)
(* The spec's theorems (Z3) and reachable checks have no part in the state space.  *)
(* Run with -workers 1: TLC finds the same distinct and generated states as        *)
(* `tlacheck check` (docs/performance.md, "The seed models scaled up").            *)
EXTENDS Naturals

CONSTANTS AGENT, main, MAX_DEPTH, FORK_EXPERIMENT, INTERNAL_BUILD

VARIABLES parent, launch, forked, background, rejected

vars == <<parent, launch, forked, background, rejected>>

Isolation == {"NoIsolation", "Worktree", "Remote"}
RunInBackground == {"none", "false", "true"}

\* ================================================================ routing

wants_background(rib, defBackground, forkMode, callerIsTeammate) ==
    rib = "true" \/ defBackground

route(hasTeamName, hasName, isolation, rib, defBackground, forkMode, callerIsTeammate) ==
    IF hasTeamName /\ hasName THEN "InProcessTeammate"
    ELSE IF isolation = "Remote" THEN "RemoteAgent"
    ELSE IF isolation = "Worktree" THEN "WorktreeAgent"
    ELSE IF wants_background(rib, defBackground, forkMode, callerIsTeammate) THEN "LocalAsync"
    ELSE "LocalSync"

in_background(l, rib, defBackground, forkMode, callerIsTeammate) ==
    \/ l = "RemoteAgent" \/ l = "LocalAsync"
    \/ (l = "WorktreeAgent" /\ wants_background(rib, defBackground, forkMode, callerIsTeammate))

agent_type(explicitType, forkExperiment) ==
    IF explicitType THEN "Named" ELSE IF forkExperiment THEN "ForkOfParent" ELSE "GeneralPurpose"

denies_teammate_background(callerIsTeammate, rib, defBackground) ==
    callerIsTeammate /\ (rib = "true" \/ defBackground)

denies_teammate_teammate(callerIsTeammate, hasTeamName, hasName) ==
    callerIsTeammate /\ hasTeamName /\ hasName

denies_fork_in_fork(callerForked, explicitType, forkExperiment) ==
    callerForked /\ agent_type(explicitType, forkExperiment) = "ForkOfParent"

admitted(callerIsTeammate, callerForked, hasTeamName, hasName, rib, defBackground, explicitType,
         forkExperiment) ==
    /\ ~denies_teammate_background(callerIsTeammate, rib, defBackground)
    /\ ~denies_teammate_teammate(callerIsTeammate, hasTeamName, hasName)
    /\ ~denies_fork_in_fork(callerForked, explicitType, forkExperiment)

\* ================================================================ agents spawning agents

Init ==
    /\ parent = [a \in {} |-> main]
    /\ launch = [a \in {} |-> "LocalSync"]
    /\ forked = {}
    /\ background = {}
    /\ rejected = {}

alive == DOMAIN parent \cup {main}

is_teammate(a) == a # main /\ launch[a] = "InProcessTeammate"
is_forked(a) == a \in forked

RECURSIVE depth(_)
depth(a) == IF a = main THEN 0 ELSE depth(parent[a]) + 1

next_slot == IF alive = AGENT THEN {} ELSE {CHOOSE a \in AGENT : a \notin alive}

isolations == IF INTERNAL_BUILD THEN Isolation ELSE {"NoIsolation", "Worktree"}

Spawn(caller, child, team, isolation, rib, defBackground, explicitType) ==
    /\ depth(caller) < MAX_DEPTH
    /\ LET teammate == is_teammate(caller)
           routed == route(team, team, isolation, rib, defBackground, FORK_EXPERIMENT, teammate)
       IN /\ admitted(teammate, is_forked(caller), team, team, rib, defBackground, explicitType,
                      FORK_EXPERIMENT)
          /\ parent' = [a \in DOMAIN parent \cup {child} |-> IF a = child THEN caller ELSE parent[a]]
          /\ launch' = [a \in DOMAIN launch \cup {child} |-> IF a = child THEN routed ELSE launch[a]]
          /\ forked' = IF routed # "InProcessTeammate"
                          /\ agent_type(explicitType, FORK_EXPERIMENT) = "ForkOfParent"
                       THEN forked \cup {child} ELSE forked
          /\ background' = IF in_background(routed, rib, defBackground, FORK_EXPERIMENT, teammate)
                           THEN background \cup {child} ELSE background
          /\ UNCHANGED rejected

SpawnRejected(caller, team, rib, defBackground, explicitType) ==
    /\ depth(caller) < MAX_DEPTH
    /\ LET teammate == is_teammate(caller)
           g1 == IF denies_teammate_background(teammate, rib, defBackground)
                 THEN {"TeammateBackground"} ELSE {}
           g2 == IF denies_teammate_teammate(teammate, team, team) THEN {"TeammateTeammate"} ELSE {}
           g3 == IF denies_fork_in_fork(is_forked(caller), explicitType, FORK_EXPERIMENT)
                 THEN {"ForkInFork"} ELSE {}
       IN /\ ~admitted(teammate, is_forked(caller), team, team, rib, defBackground, explicitType,
                       FORK_EXPERIMENT)
          /\ rejected' = rejected \cup g1 \cup g2 \cup g3
          /\ UNCHANGED <<parent, launch, forked, background>>

Work == UNCHANGED vars

Next ==
    \/ \E caller \in alive, child \in next_slot, team \in BOOLEAN, isolation \in isolations,
          rib \in RunInBackground, defBackground \in BOOLEAN, explicitType \in BOOLEAN:
         Spawn(caller, child, team, isolation, rib, defBackground, explicitType)
    \/ \E caller \in alive, team \in BOOLEAN, rib \in RunInBackground, defBackground \in BOOLEAN,
          explicitType \in BOOLEAN:
         SpawnRejected(caller, team, rib, defBackground, explicitType)
    \/ Work

\* ---------------------------------------------------------------- checks

NoBackgroundFromTeammate == \A a \in DOMAIN parent: is_teammate(parent[a]) => a \notin background
NoTeammateFromTeammate == \A a \in DOMAIN parent: is_teammate(parent[a]) => ~is_teammate(a)
NoForkFromFork == \A a \in DOMAIN parent: is_forked(parent[a]) => ~is_forked(a)
=============================================================================
