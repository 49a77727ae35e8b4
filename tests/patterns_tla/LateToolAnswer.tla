---- MODULE LateToolAnswer ----
EXTENDS Naturals
MaxVersion == 1
MaxCalls == 2
VARIABLES version, phase, calls, read, reads, inflight, taken, stale
vars == <<version, phase, calls, read, reads, inflight, taken, stale>>
Init == version = 0 /\ phase = "idle" /\ calls = 0 /\ read = 0 /\ reads = [i \in 1..MaxCalls |-> 0]
        /\ inflight = {} /\ taken = 0 /\ stale = FALSE
Change == version < MaxVersion /\ version' = version + 1 /\ UNCHANGED <<phase, calls, read, reads, inflight, taken, stale>>
Call == phase = "idle" /\ calls < MaxCalls /\ calls' = calls + 1 /\ read' = version
        /\ reads' = [reads EXCEPT ![calls + 1] = version] /\ inflight' = inflight \cup {calls + 1}
        /\ phase' = "waiting" /\ UNCHANGED <<version, taken, stale>>
Retry == IF calls < MaxCalls THEN "idle" ELSE "done"
\* base: the agent, waiting, takes any answer or failure as its current call's
Answer(i) == i \in inflight /\ inflight' = inflight \ {i}
             /\ (IF phase = "waiting" THEN taken' = i /\ phase' = "ready" ELSE UNCHANGED <<taken, phase>>)
             /\ UNCHANGED <<version, calls, read, reads, stale>>
Fail(i) == i \in inflight /\ inflight' = inflight \ {i}
           /\ phase' = (IF phase = "waiting" THEN Retry ELSE phase)
           /\ UNCHANGED <<version, calls, read, reads, taken, stale>>
\* MatchCallId: only the current call's
AnswerId(i) == i \in inflight /\ inflight' = inflight \ {i}
               /\ (IF phase = "waiting" /\ i = calls THEN taken' = i /\ phase' = "ready" ELSE UNCHANGED <<taken, phase>>)
               /\ UNCHANGED <<version, calls, read, reads, stale>>
FailId(i) == i \in inflight /\ inflight' = inflight \ {i}
             /\ phase' = (IF phase = "waiting" /\ i = calls THEN Retry ELSE phase)
             /\ UNCHANGED <<version, calls, read, reads, taken, stale>>
Timeout == phase = "waiting" /\ phase' = Retry /\ UNCHANGED <<version, calls, read, reads, inflight, taken, stale>>
Act == phase = "ready" /\ stale' = (stale \/ reads[taken] < read) /\ phase' = "done"
       /\ UNCHANGED <<version, calls, read, reads, inflight, taken>>
A == \E i \in 1..MaxCalls: Answer(i)
AI == \E i \in 1..MaxCalls: AnswerId(i)
Spec == Init /\ [][Change \/ Call \/ A \/ (\E i \in 1..MaxCalls: Fail(i)) \/ Timeout \/ Act]_vars
        /\ WF_vars(Call) /\ WF_vars(A) /\ WF_vars(Act)
SpecId == Init /\ [][Change \/ Call \/ AI \/ (\E i \in 1..MaxCalls: FailId(i)) \/ Timeout \/ Act]_vars
          /\ WF_vars(Call) /\ WF_vars(AI) /\ WF_vars(Act)
NoStaleResult == ~stale
ActsOnItsOwnRead == [][phase = "ready" /\ phase' = "done" => reads[taken] >= read]_vars
Live == <>(phase = "done")
====
