---- MODULE Lease ----
EXTENDS Naturals
CONSTANTS c1, c2
Clients == {c1, c2}
TTL == 2
Horizon == 4
MaxGrants == 3
NONE == "none"
VARIABLES now, holder, expires, token, held, accepted, lost
vars == <<now, holder, expires, token, held, accepted, lost>>
Expired == ~(holder # NONE /\ expires > now)  \* one disjunct: TLC counts a successor once per true disjunct
Init == now = 0 /\ holder = NONE /\ expires = 0 /\ token = 0 /\ held = [c \in Clients |-> 0] /\ accepted = 0 /\ lost = FALSE
Acquire(c) == Expired /\ held[c] = 0 /\ token < MaxGrants /\ token' = token + 1 /\ holder' = c /\ expires' = now + TTL /\ held' = [held EXCEPT ![c] = token + 1] /\ UNCHANGED <<now, accepted, lost>>
Heartbeat(c) == holder = c /\ held[c] = token /\ ~Expired /\ expires' = now + TTL /\ UNCHANGED <<now, holder, token, held, accepted, lost>>
Release(c) == held[c] # 0 /\ holder' = (IF holder = c /\ held[c] = token THEN NONE ELSE holder) /\ held' = [held EXCEPT ![c] = 0] /\ UNCHANGED <<now, expires, token, accepted, lost>>
Tick == now < Horizon /\ now' = now + 1 /\ UNCHANGED <<holder, expires, token, held, accepted, lost>>
Write(c) == held[c] # 0 /\ ~lost /\ IF held[c] < accepted THEN lost' = TRUE /\ UNCHANGED accepted ELSE accepted' = held[c] /\ UNCHANGED lost
WriteF(c) == held[c] # 0 /\ held[c] >= accepted /\ ~lost /\ accepted' = held[c] /\ UNCHANGED lost
NextB == Tick \/ \E c \in Clients: Acquire(c) \/ Heartbeat(c) \/ Release(c) \/ (Write(c) /\ UNCHANGED <<now, holder, expires, token, held>>)
NextF == Tick \/ \E c \in Clients: Acquire(c) \/ Heartbeat(c) \/ Release(c) \/ (WriteF(c) /\ UNCHANGED <<now, holder, expires, token, held>>)
SpecB == Init /\ [][NextB]_vars
SpecF == Init /\ [][NextF]_vars
NoLostUpdate == ~lost
====
