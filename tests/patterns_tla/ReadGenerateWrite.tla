---- MODULE ReadGenerateWrite ----
EXTENDS Naturals
CONSTANTS a1, a2
Agents == {a1, a2}
MaxAttempts == 2
VARIABLES version, phase, seen, attempts, stale
vars == <<version, phase, seen, attempts, stale>>
Init == version = 0 /\ phase = [a \in Agents |-> "idle"] /\ seen = [a \in Agents |-> 0]
        /\ attempts = [a \in Agents |-> 0] /\ stale = FALSE
Read(a) == phase[a] = "idle" /\ seen' = [seen EXCEPT ![a] = version] /\ phase' = [phase EXCEPT ![a] = "generating"]
           /\ UNCHANGED <<version, attempts, stale>>
Call(a) == phase[a] = "generating" /\ attempts' = [attempts EXCEPT ![a] = @ + 1]
           /\ (phase' = [phase EXCEPT ![a] = "ready"]
               \/ phase' = [phase EXCEPT ![a] = IF attempts[a] + 1 < MaxAttempts THEN "idle" ELSE "done"])
           /\ UNCHANGED <<version, seen, stale>>
Write(a) == phase[a] = "ready" /\ ~stale /\ stale' = (seen[a] # version) /\ version' = version + 1
            /\ phase' = [phase EXCEPT ![a] = "done"] /\ UNCHANGED <<seen, attempts>>
WriteCas(a) == phase[a] = "ready" /\ seen[a] = version /\ version' = version + 1
               /\ phase' = [phase EXCEPT ![a] = "done"] /\ UNCHANGED <<seen, attempts, stale>>
Reread(a) == phase[a] = "ready" /\ seen[a] # version /\ phase' = [phase EXCEPT ![a] = "idle"]
             /\ UNCHANGED <<version, seen, attempts, stale>>
R == \E a \in Agents: Read(a)
C == \E a \in Agents: Call(a)
W == \E a \in Agents: Write(a)
WC == \E a \in Agents: WriteCas(a)
RR == \E a \in Agents: Reread(a)
Spec == Init /\ [][R \/ C \/ W]_vars /\ WF_vars(R) /\ WF_vars(C) /\ WF_vars(W)
SpecCas == Init /\ [][R \/ C \/ WC \/ RR]_vars /\ WF_vars(R) /\ WF_vars(C) /\ WF_vars(WC) /\ WF_vars(RR)
NoStaleWrite == ~stale
Live == <>(\A a \in Agents: phase[a] = "done")
====
