--------------------------- MODULE MCYoYoNoPruning_g11 ---------------------------
\* MCYoYoNoPruning.tla scaled up: the eleven-node graph it gives in a comment
EXTENDS Integers
Nodes == {2,3,4,5,7,11,12,14,20,31,41}
Edges == {{2,31}, {3,11}, {3,12}, {3,14}, {4,14}, {4,20}, 
          {5,11}, {5,12}, {5,20}, {7,20}, {7,31}, 
          {11,12}, {12,20}, {20,41}}
VARIABLES phase, incoming, outgoing, mailbox
INSTANCE YoYoNoPruning
==============================================================================
