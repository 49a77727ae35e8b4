---------------------------- MODULE notify_race_scaled ----------------------------
(* benchmarks/models/notify_race_scaled.spec in TLA+, action for action: the seed     *)
(* specs/notify_race.spec with a constant set of Tasks, each with its own registry    *)
(* record, original run, follow-on run and DONE message, and one notification queue  *)
(* shared by all tasks. The enums are strings; a map over Tasks is a function.        *)
(* Run with -workers 1 and no SYMMETRY: TLC finds the same distinct and generated    *)
(* states as `tlacheck check --no-symmetry` (docs/performance.md).                   *)
EXTENDS Naturals, Sequences

CONSTANT Tasks

VARIABLES notified, recordToolUse, runner, follow, sent, sendResult, joinedTurn,
          pendingMessages, strandedEvent, queue, delivered, notifications

vars == <<notified, recordToolUse, runner, follow, sent, sendResult, joinedTurn,
          pendingMessages, strandedEvent, queue, delivered, notifications>>

Init ==
    /\ notified = [t \in Tasks |-> FALSE]
    /\ recordToolUse = [t \in Tasks |-> "PreviousResume"]
    /\ runner = [t \in Tasks |-> "Running"]
    /\ follow = [t \in Tasks |-> "NotStarted"]
    /\ sent = [t \in Tasks |-> FALSE]
    /\ sendResult = [t \in Tasks |-> "NotSent"]
    /\ joinedTurn = [t \in Tasks |-> FALSE]
    /\ pendingMessages = [t \in Tasks |-> FALSE]
    /\ strandedEvent = [t \in Tasks |-> FALSE]
    /\ queue = <<>>
    /\ delivered = [t \in Tasks |-> {}]
    /\ notifications = [t \in Tasks |-> 0]

claimFails(t) == notified[t]

\* ---------------------------------------------------------------- the original runs

FinalApiRound(t) ==
    /\ runner[t] = "Running"
    /\ runner' = [runner EXCEPT ![t] = "FinalRound"]
    /\ UNCHANGED <<notified, recordToolUse, follow, sent, sendResult, joinedTurn,
                   pendingMessages, strandedEvent, queue, delivered, notifications>>

TaskFinishes(t) ==
    /\ runner[t] = "FinalRound"
    /\ runner' = [runner EXCEPT ![t] = "Finished"]
    /\ strandedEvent' = IF pendingMessages[t] THEN [strandedEvent EXCEPT ![t] = TRUE]
                                              ELSE strandedEvent
    /\ UNCHANGED <<notified, recordToolUse, follow, sent, sendResult, joinedTurn,
                   pendingMessages, queue, delivered, notifications>>

ClassifierGate(t) ==
    /\ runner[t] = "Finished"
    /\ runner' = [runner EXCEPT ![t] = "AfterClassifier"]
    /\ UNCHANGED <<notified, recordToolUse, follow, sent, sendResult, joinedTurn,
                   pendingMessages, strandedEvent, queue, delivered, notifications>>

WorktreeRead(t) ==
    /\ runner[t] = "AfterClassifier"
    /\ runner' = [runner EXCEPT ![t] = "AfterWorktree"]
    /\ UNCHANGED <<notified, recordToolUse, follow, sent, sendResult, joinedTurn,
                   pendingMessages, strandedEvent, queue, delivered, notifications>>

EnqueueStopNotification(t) ==
    /\ runner[t] = "AfterWorktree"
    /\ runner' = [runner EXCEPT ![t] = "Stopped"]
    /\ IF ~claimFails(t)
         THEN /\ notified' = [notified EXCEPT ![t] = TRUE]
              /\ queue' = Append(queue, [task |-> t,
                                         reply |-> IF joinedTurn[t] THEN "Answer" ELSE "OldReply",
                                         toolUse |-> "PreviousResume"])
              /\ notifications' = [notifications EXCEPT ![t] = @ + 1]
         ELSE UNCHANGED <<notified, queue, notifications>>
    /\ UNCHANGED <<recordToolUse, follow, sent, sendResult, joinedTurn,
                   pendingMessages, strandedEvent, delivered>>

\* ---------------------------------------------------------------- the parent

SendDone(t) ==
    /\ ~sent[t]
    /\ sent' = [sent EXCEPT ![t] = TRUE]
    /\ sendResult' = [sendResult EXCEPT ![t] = "Resuming"]
    /\ IF runner[t] = "Running"
         THEN /\ joinedTurn' = [joinedTurn EXCEPT ![t] = TRUE]
              /\ UNCHANGED <<pendingMessages, strandedEvent>>
         ELSE /\ pendingMessages' = [pendingMessages EXCEPT ![t] = TRUE]
              /\ strandedEvent' = IF runner[t] # "FinalRound" THEN [strandedEvent EXCEPT ![t] = TRUE]
                                                             ELSE strandedEvent
              /\ UNCHANGED joinedTurn
    /\ UNCHANGED <<notified, recordToolUse, runner, follow, queue, delivered, notifications>>

ParentReads ==
    /\ queue # <<>>
    /\ delivered' = [delivered EXCEPT ![Head(queue).task] = @ \cup {Head(queue).reply}]
    /\ queue' = Tail(queue)
    /\ UNCHANGED <<notified, recordToolUse, runner, follow, sent, sendResult, joinedTurn,
                   pendingMessages, strandedEvent, notifications>>

ParentWorks == UNCHANGED vars

\* ---------------------------------------------------------------- the follow-on runs

StartFollowOn(t) ==
    /\ strandedEvent[t] /\ follow[t] = "NotStarted"
    /\ pendingMessages' = [pendingMessages EXCEPT ![t] = FALSE]
    /\ notified' = [notified EXCEPT ![t] = FALSE]
    /\ recordToolUse' = [recordToolUse EXCEPT ![t] = "DoneSend"]
    /\ follow' = [follow EXCEPT ![t] = "Registered"]
    /\ UNCHANGED <<runner, sent, sendResult, joinedTurn, strandedEvent, queue, delivered,
                   notifications>>

FollowOnAnswers(t) ==
    /\ follow[t] = "Registered"
    /\ follow' = [follow EXCEPT ![t] = "Answered"]
    /\ UNCHANGED <<notified, recordToolUse, runner, sent, sendResult, joinedTurn,
                   pendingMessages, strandedEvent, queue, delivered, notifications>>

FollowOnNotifies(t) ==
    /\ follow[t] = "Answered"
    /\ follow' = [follow EXCEPT ![t] = "Done"]
    /\ IF ~claimFails(t)
         THEN /\ notified' = [notified EXCEPT ![t] = TRUE]
              /\ queue' = Append(queue, [task |-> t, reply |-> "Answer", toolUse |-> recordToolUse[t]])
              /\ notifications' = [notifications EXCEPT ![t] = @ + 1]
         ELSE UNCHANGED <<notified, queue, notifications>>
    /\ UNCHANGED <<recordToolUse, runner, sent, sendResult, joinedTurn, pendingMessages,
                   strandedEvent, delivered>>

Next ==
    \/ \E t \in Tasks:
         \/ FinalApiRound(t) \/ TaskFinishes(t) \/ ClassifierGate(t) \/ WorktreeRead(t)
         \/ EnqueueStopNotification(t) \/ SendDone(t)
         \/ StartFollowOn(t) \/ FollowOnAnswers(t) \/ FollowOnNotifies(t)
    \/ ParentReads
    \/ ParentWorks

\* ---------------------------------------------------------------- checks

SameResultString == \A t \in Tasks: sent[t] => sendResult[t] = "Resuming"
=============================================================================
