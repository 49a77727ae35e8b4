---- MODULE InitRec ----
EXTENDS Naturals
VARIABLES r, t
Init == /\ r \in [on : BOOLEAN, level : 0..2]
        /\ t \in (0..1) \X {"lo", "hi"}
        /\ r.on => r.level > 0
        /\ t[1] <= r.level
Next == \/ /\ r.level < 2
           /\ r' = [r EXCEPT !.level = @ + 1]
           /\ UNCHANGED t
        \/ /\ r.on
           /\ r' = [r EXCEPT !.on = FALSE]
           /\ UNCHANGED t
        \/ /\ t[2] = "lo"
           /\ t' = <<t[1], "hi">>
           /\ UNCHANGED r
Inv == t[1] <= r.level
====
