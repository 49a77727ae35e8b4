---- MODULE InitLock ----
CONSTANTS Procs, NoOne
VARIABLES owner, waiting
Init == /\ owner \in Procs \cup {NoOne}
        /\ waiting \in SUBSET Procs
        /\ owner \notin waiting
Request(p) == /\ p \notin waiting
              /\ owner # p
              /\ waiting' = waiting \cup {p}
              /\ UNCHANGED owner
Acquire(p) == /\ owner = NoOne
              /\ p \in waiting
              /\ owner' = p
              /\ waiting' = waiting \ {p}
Release == /\ owner # NoOne
           /\ owner' = NoOne
           /\ UNCHANGED waiting
Next == (\E p \in Procs : Request(p)) \/ (\E p \in Procs : Acquire(p)) \/ Release
NotWaitingOwner == owner \notin waiting
====
