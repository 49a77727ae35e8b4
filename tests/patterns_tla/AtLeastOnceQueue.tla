---- MODULE AtLeastOnceQueue ----
EXTENDS Naturals
CONSTANTS m1, m2, w1, w2
Msgs == {m1, m2}
Workers == {w1, w2}
NONE == "none"
\* Guards are written without \E or \/ where they need not be: TLC counts a successor once per
\* true disjunct or witness, tlacheck once (the counts compared are those of the same steps).
VARIABLES queued, inflight, acked, applied
vars == <<queued, inflight, acked, applied>>
Init == queued = Msgs /\ inflight = [w \in Workers |-> NONE] /\ acked = {} /\ applied = [m \in Msgs |-> 0]
Receive(w, m) == inflight[w] = NONE /\ m \in queued /\ queued' = queued \ {m} /\ inflight' = [inflight EXCEPT ![w] = m] /\ UNCHANGED <<acked, applied>>
Timeout(m) == m \notin queued /\ m \notin acked /\ m \in {inflight[w] : w \in Workers} /\ queued' = queued \cup {m} /\ UNCHANGED <<inflight, acked, applied>>
Process(w, m) == inflight[w] = m /\ applied' = [applied EXCEPT ![m] = @ + 1] /\ acked' = acked \cup {m} /\ queued' = queued \ {m} /\ inflight' = [inflight EXCEPT ![w] = NONE]
RecA == \E w \in Workers, m \in Msgs: Receive(w, m)
ProcA == \E w \in Workers, m \in Msgs: Process(w, m)
Next == RecA \/ (\E m \in Msgs: Timeout(m)) \/ ProcA
Spec == Init /\ [][Next]_vars /\ WF_vars(RecA) /\ WF_vars(ProcA)
EffectOnce == \A m \in Msgs: applied[m] <= 1
Live == <>(\A m \in Msgs: m \in acked)
====
