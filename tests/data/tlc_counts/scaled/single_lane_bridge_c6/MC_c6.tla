---- MODULE MC_c6 ----
\* MC.tla scaled up: three cars on each side
EXTENDS SingleLaneBridge, TLC
const_r == {"r1","r2","r3"}
const_l == {"l1","l2","l3"}
const_b == {4,5}
const_p == {1,2,3,4,5,6,7,8}
====
