---- MODULE EnabledGuard ----
\* enabled_guard.spec in TLA+, for TLC (tests/test_language_tlc.py)
CONSTANTS Procs, NoOne
VARIABLES owner, waiting, gaveUp, needless
vars == <<owner, waiting, gaveUp, needless>>
Init == owner = NoOne /\ waiting = {} /\ gaveUp = {} /\ needless = FALSE
Request(p) == p \notin waiting /\ owner # p /\ waiting' = waiting \cup {p} /\ UNCHANGED <<owner, gaveUp, needless>>
Enter(p) == owner = NoOne /\ p \in waiting /\ owner' = p /\ waiting' = waiting \ {p} /\ UNCHANGED <<gaveUp, needless>>
Leave(p) == owner = p /\ owner' = NoOne /\ UNCHANGED <<waiting, gaveUp, needless>>
GiveUp(p) == /\ p \in waiting /\ p \notin gaveUp /\ ~ENABLED Enter(p)
             /\ needless' = (needless \/ owner = NoOne)
             /\ waiting' = waiting \ {p} /\ gaveUp' = gaveUp \cup {p} /\ UNCHANGED owner
Impatient(p) == /\ p \in waiting /\ p \notin gaveUp
                /\ needless' = (needless \/ owner = NoOne)
                /\ waiting' = waiting \ {p} /\ gaveUp' = gaveUp \cup {p} /\ UNCHANGED owner
Next == \E p \in Procs : Request(p) \/ Enter(p) \/ Leave(p) \/ GiveUp(p)
NextImpatient == \E p \in Procs : Request(p) \/ Enter(p) \/ Leave(p) \/ Impatient(p)
Spec == Init /\ [][Next]_vars
SpecImpatient == Init /\ [][NextImpatient]_vars
NoNeedlessGiveUp == ~needless
====
