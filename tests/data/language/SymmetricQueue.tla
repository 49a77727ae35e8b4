---- MODULE SymmetricQueue ----
\* symmetric_queue.spec in TLA+, for TLC (tests/test_language_tlc.py); NoOne stands for `none`
EXTENDS Integers, Sequences, FiniteSets, TLC
CONSTANTS Worker, Cap, NoOne
VARIABLES waiting, queue, serving, served
vars == <<waiting, queue, serving, served>>
\* every sequence that lists each element of S once
Orderings(S) == {f \in [1..Cardinality(S) -> S] : \A i, j \in 1..Cardinality(S) : i # j => f[i] # f[j]}
Elems(s) == {s[i] : i \in DOMAIN s}
Init == waiting = {} /\ queue = <<>> /\ serving = NoOne /\ served = {}
Arrive(w) == /\ w \notin waiting /\ w \notin Elems(queue) /\ serving # w /\ w \notin served
             /\ Len(queue) + Cardinality(waiting) < Cap
             /\ waiting' = waiting \cup {w} /\ UNCHANGED <<queue, serving, served>>
Batch == /\ waiting # {} /\ Len(queue) + Cardinality(waiting) <= Cap
         /\ \E q \in Orderings(waiting) : queue' = queue \o q
         /\ waiting' = {} /\ UNCHANGED <<serving, served>>
BatchTwice == /\ waiting # {} /\ Len(queue) + Cardinality(waiting) <= Cap
              /\ \E q \in Orderings(waiting) : queue' = queue \o q
              /\ UNCHANGED <<waiting, serving, served>>
Serve == serving = NoOne /\ queue # <<>> /\ serving' = Head(queue) /\ queue' = Tail(queue) /\ UNCHANGED <<waiting, served>>
Finish == serving # NoOne /\ served' = served \cup {serving} /\ serving' = NoOne /\ UNCHANGED <<waiting, queue>>
Reset == served = Worker /\ served' = {} /\ UNCHANGED <<waiting, queue, serving>>
Next == (\E w \in Worker : Arrive(w)) \/ Batch \/ Serve \/ Finish \/ Reset
NextTwice == (\E w \in Worker : Arrive(w)) \/ BatchTwice \/ Serve \/ Finish \/ Reset
Spec == Init /\ [][Next]_vars
SpecTwice == Init /\ [][NextTwice]_vars
Bounded == Len(queue) <= Cap
Once == (\A w \in Worker : ~(w \in waiting /\ w \in Elems(queue))) /\ (serving = NoOne \/ serving \notin Elems(queue))
Perms == Permutations(Worker)
====
