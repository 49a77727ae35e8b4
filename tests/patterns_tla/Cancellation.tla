---- MODULE Cancellation ----
CONSTANTS t1, t2
Tasks == {t1, t2}
NONE == "none"
VARIABLES phase, requests, owner
vars == <<phase, requests, owner>>
Init == phase = [t \in Tasks |-> "idle"] /\ requests = {} /\ owner = NONE
Request(t) == phase[t] = "idle" /\ phase' = [phase EXCEPT ![t] = "waiting"] /\ requests' = requests \cup {t}
              /\ UNCHANGED owner
Grant(t) == owner = NONE /\ t \in requests /\ owner' = t /\ requests' = requests \ {t} /\ UNCHANGED phase
Wake(t) == phase[t] = "waiting" /\ owner = t /\ phase' = [phase EXCEPT ![t] = "holding"] /\ UNCHANGED <<requests, owner>>
Finish(t) == phase[t] = "holding" /\ owner' = NONE /\ phase' = [phase EXCEPT ![t] = "done"] /\ UNCHANGED requests
Cancelling(t) == phase[t] \in {"waiting", "holding"} /\ phase' = [phase EXCEPT ![t] = "cancelled"]
\* base: the task releases what it knows it holds
Cancel(t) == Cancelling(t) /\ owner' = (IF phase[t] = "holding" THEN NONE ELSE owner) /\ UNCHANGED requests
\* WithdrawOnly: and withdraws its request
CancelWithdraw(t) == Cancelling(t) /\ owner' = (IF phase[t] = "holding" THEN NONE ELSE owner)
                     /\ requests' = requests \ {t}
\* ReleaseOnCancel: and releases whatever the pool granted it
CancelRelease(t) == Cancelling(t) /\ owner' = (IF owner = t THEN NONE ELSE owner) /\ requests' = requests \ {t}
Steps(C(_)) == \E t \in Tasks: Request(t) \/ Grant(t) \/ Wake(t) \/ Finish(t) \/ C(t)
G == \E t \in Tasks: Grant(t)
W == \E t \in Tasks: Wake(t)
F == \E t \in Tasks: Finish(t)
Fair == WF_vars(G) /\ WF_vars(W) /\ WF_vars(F)
Spec == Init /\ [][Steps(Cancel)]_vars /\ Fair
SpecWithdraw == Init /\ [][Steps(CancelWithdraw)]_vars /\ Fair
SpecRelease == Init /\ [][Steps(CancelRelease)]_vars /\ Fair
NothingLeftBehind == \A t \in Tasks: phase[t] = "cancelled" => owner # t /\ t \notin requests
Live == \A t \in Tasks: (phase[t] = "waiting") ~> (phase[t] # "waiting")
====
