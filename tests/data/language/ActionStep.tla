---- MODULE ActionStep ----
\* action_step.spec in TLA+, for TLC (tests/test_language_tlc.py)
EXTENDS Integers
CONSTANTS Clients
VARIABLES holder, epoch, written
vars == <<holder, epoch, written>>
Init == holder = 0 /\ epoch = 0 /\ written = 0
Acquire(c) == holder = 0 /\ epoch < 2 /\ holder' = c /\ epoch' = epoch + 1 /\ UNCHANGED written
Release(c) == holder = c /\ holder' = 0 /\ UNCHANGED <<epoch, written>>
Write(c) == holder = c /\ written' = epoch /\ UNCHANGED <<holder, epoch>>
Idle == UNCHANGED vars
Steal(c) == holder # 0 /\ holder # c /\ epoch < 2 /\ holder' = c /\ epoch' = epoch + 1 /\ UNCHANGED written
Next == (\E c \in Clients : Acquire(c) \/ Release(c) \/ Write(c)) \/ Idle
NextSteal == Next \/ \E c \in Clients : Steal(c)
Spec == Init /\ [][Next]_vars
SpecSteal == Init /\ [][NextSteal]_vars
WriteByHolder == [][\A c \in Clients : Write(c) => holder = c /\ written' = epoch]_vars
EpochOnlyOnAcquire == [][epoch' # epoch => \E c \in Clients : Acquire(c)]_vars
ReleaseFrees == [][\A c \in Clients : Release(c) => holder' = 0 /\ ~Acquire(c)]_vars
====
