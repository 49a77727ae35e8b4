---- MODULE ApprovalGate ----
EXTENDS Naturals
CONSTANTS send_email, delete_branch
Calls == {send_email, delete_branch}
MaxRuns == 2
NONE == "none"
VARIABLES proposed, approval, approvals, runs
vars == <<proposed, approval, approvals, runs>>
Init == proposed = NONE /\ approval = NONE /\ approvals = [c \in Calls |-> 0] /\ runs = [c \in Calls |-> 0]
Propose(c) == proposed # c /\ runs[c] < MaxRuns /\ proposed' = c /\ UNCHANGED <<approval, approvals, runs>>
Approve(c) == proposed = c /\ approvals[c] < MaxRuns /\ approval' = c /\ approvals' = [approvals EXCEPT ![c] = @ + 1]
              /\ UNCHANGED <<proposed, runs>>
Deny(c) == proposed = c /\ proposed' = NONE /\ UNCHANGED <<approval, approvals, runs>>
\* base: the gate asks only whether there is an approval
Run(c) == proposed = c /\ approval # NONE /\ runs[c] < MaxRuns /\ runs' = [runs EXCEPT ![c] = @ + 1]
          /\ proposed' = NONE /\ UNCHANGED <<approval, approvals>>
\* BoundApproval: the approval names the call and is used up
RunBound(c) == proposed = c /\ approval = c /\ runs[c] < MaxRuns /\ runs' = [runs EXCEPT ![c] = @ + 1]
               /\ proposed' = NONE /\ approval' = NONE /\ UNCHANGED approvals
Spec == Init /\ [][\E c \in Calls: Propose(c) \/ Approve(c) \/ Deny(c) \/ Run(c)]_vars
SpecBound == Init /\ [][\E c \in Calls: Propose(c) \/ Approve(c) \/ Deny(c) \/ RunBound(c)]_vars
NoActionWithoutApproval == \A c \in Calls: runs[c] = 0 \/ approvals[c] > 0
ApprovalNotReused == \A c \in Calls: approvals[c] = 0 \/ runs[c] <= approvals[c]
RunsOnlyTheApprovedCall == [][\A c \in Calls: runs'[c] > runs[c] => approval = c]_vars
====
