---- MODULE RetryWithIdempotencyKey ----
EXTENDS Naturals
CONSTANTS r1
Requests == {r1}
MaxTries == 2
VARIABLES status, tries, sent, replied, applied
vars == <<status, tries, sent, replied, applied>>
Init == status = [r \in Requests |-> "waiting"] /\ tries = [r \in Requests |-> 1] /\ sent = [r \in Requests |-> 1]
        /\ replied = [r \in Requests |-> FALSE] /\ applied = [r \in Requests |-> 0]
Deliver(r) == sent[r] > 0 /\ sent' = [sent EXCEPT ![r] = @ - 1] /\ applied' = [applied EXCEPT ![r] = @ + 1]
              /\ replied' = [replied EXCEPT ![r] = TRUE] /\ UNCHANGED <<status, tries>>
DeliverKey(r) == sent[r] > 0 /\ sent' = [sent EXCEPT ![r] = @ - 1] /\ applied' = [applied EXCEPT ![r] = 1]
                 /\ replied' = [replied EXCEPT ![r] = TRUE] /\ UNCHANGED <<status, tries>>
LoseReply(r) == replied[r] /\ replied' = [replied EXCEPT ![r] = FALSE] /\ UNCHANGED <<status, tries, sent, applied>>
Receive(r) == replied[r] /\ status[r] = "waiting" /\ replied' = [replied EXCEPT ![r] = FALSE]
              /\ status' = [status EXCEPT ![r] = "succeeded"] /\ UNCHANGED <<tries, sent, applied>>
Timeout(r) == /\ status[r] = "waiting"
              /\ UNCHANGED <<replied, applied>>
              /\ IF tries[r] < MaxTries
                 THEN tries' = [tries EXCEPT ![r] = @ + 1] /\ sent' = [sent EXCEPT ![r] = @ + 1] /\ UNCHANGED status
                 ELSE status' = [status EXCEPT ![r] = "gave_up"] /\ UNCHANGED <<tries, sent>>
D == \E r \in Requests: Deliver(r)
DK == \E r \in Requests: DeliverKey(r)
L == \E r \in Requests: LoseReply(r)
R == \E r \in Requests: Receive(r)
T == \E r \in Requests: Timeout(r)
Spec == Init /\ [][D \/ L \/ R \/ T]_vars /\ WF_vars(D) /\ WF_vars(R) /\ WF_vars(T)
SpecKey == Init /\ [][DK \/ L \/ R \/ T]_vars /\ WF_vars(DK) /\ WF_vars(R) /\ WF_vars(T)
AppliedOnce == \A r \in Requests: applied[r] <= 1
Live == <>(\A r \in Requests: status[r] # "waiting")
====
