---- MODULE OptionNarrowing ----
\* option_narrowing.spec in TLA+, for TLC (tests/test_language_tlc.py); NoOne stands for `none`
EXTENDS Integers, TLC
CONSTANTS Node, NoOne
VARIABLES holder, waiting, last, served
vars == <<holder, waiting, last, served>>
Init == holder = NoOne /\ waiting = {} /\ last = NoOne /\ served = [n \in Node |-> 0]
Request(n) == n \notin waiting /\ holder # n /\ waiting' = waiting \cup {n} /\ UNCHANGED <<holder, last, served>>
Grant(n) == holder = NoOne /\ n \in waiting /\ holder' = n /\ waiting' = waiting \ {n} /\ UNCHANGED <<last, served>>
Release == /\ holder # NoOne
           /\ served' = [served EXCEPT ![holder] = @ + 1]
           /\ last' = holder
           /\ holder' = NoOne
           /\ UNCHANGED waiting
Next == (\E n \in Node : Request(n)) \/ (\E n \in Node : Grant(n)) \/ Release
Spec == Init /\ [][Next]_vars
Exclusive == holder = NoOne \/ holder \notin waiting
LastServed == last = NoOne \/ served[last] > 0
Small == \A n \in Node : served[n] <= 2
Perms == Permutations(Node)
====
