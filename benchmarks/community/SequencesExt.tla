---------------------------- MODULE SequencesExt ----------------------------
(***************************************************************************)
(* The operator of the community module SequencesExt that the tcp model of *)
(* tlaplus/Examples uses, defined here so that TLC 2.15, which does not    *)
(* ship the community modules, can run it: IsPrefix(s, t) holds when the   *)
(* sequence s is a prefix of the sequence t.                               *)
(***************************************************************************)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences

IsPrefix(s, t) == Len(s) <= Len(t) /\ SubSeq(t, 1, Len(s)) = s
=============================================================================
