-------------------------- MODULE UndirectedGraphs --------------------------
(***************************************************************************)
(* The operators of the community module UndirectedGraphs that the YoYo    *)
(* models of tlaplus/Examples use, defined here so that TLC 2.15, which    *)
(* does not ship the community modules, can run them. A graph is a record  *)
(* [node |-> N, edge |-> E], each edge a set {a, b} of nodes. The meaning  *)
(* is the community module's: IsStronglyConnected(G) holds when the nodes  *)
(* form exactly one connected component (so G.node is not empty); it is    *)
(* computed here by growing the set of nodes reachable from one node.      *)
(***************************************************************************)

IsUndirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ \A e \in G.edge : \E a, b \in G.node : e = {a, b}

IsLoopFreeUndirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ \A e \in G.edge : \E a, b \in G.node : a # b /\ e = {a, b}

RECURSIVE ReachableFrom(_, _)
\* The nodes reachable in G from the nodes of S.
ReachableFrom(G, S) ==
  LET more == S \cup {n \in G.node : \E m \in S : {m, n} \in G.edge}
  IN  IF more = S THEN S ELSE ReachableFrom(G, more)

IsStronglyConnected(G) ==
  /\ G.node # {}
  /\ \A n \in G.node : ReachableFrom(G, {n}) = G.node
=============================================================================
