---- MODULE DurableWorkflow ----
EXTENDS Naturals
Steps == 2
MaxCrashes == 2
VARIABLES up, pc, pending, history, effects, crashes, keys, attempts
vars == <<up, pc, pending, history, effects, crashes, keys, attempts>>
\* keys and attempts belong to the variants IdempotencyKey and KeyPerAttempt; the base and
\* Transactional leave them at their initial values.
Init == up = TRUE /\ pc = 1 /\ pending = FALSE /\ history = 0 /\ effects = [s \in 1..Steps |-> 0]
        /\ crashes = 0 /\ keys = {} /\ attempts = [s \in 1..Steps |-> 0]
Replay == up /\ pc <= history /\ pc' = pc + 1 /\ UNCHANGED <<up, pending, history, effects, crashes, keys, attempts>>
Ready == up /\ history < pc /\ pc <= Steps /\ ~pending
Execute == Ready /\ effects' = [effects EXCEPT ![pc] = @ + 1] /\ pending' = TRUE
           /\ UNCHANGED <<up, pc, history, crashes, keys, attempts>>
Record == up /\ pending /\ history' = pc /\ pc' = pc + 1 /\ pending' = FALSE
          /\ UNCHANGED <<up, effects, crashes, keys, attempts>>
Crash == up /\ crashes < MaxCrashes /\ up' = FALSE /\ pc' = 1 /\ pending' = FALSE /\ crashes' = crashes + 1
         /\ UNCHANGED <<history, effects, keys, attempts>>
Restart == ~up /\ up' = TRUE /\ UNCHANGED <<pc, pending, history, effects, crashes, keys, attempts>>
\* IdempotencyKey: the world applies the key (workflow, step) once.
ExecuteKey == Ready /\ pending' = TRUE
              /\ (IF pc \notin keys THEN effects' = [effects EXCEPT ![pc] = @ + 1] /\ keys' = keys \cup {pc}
                                    ELSE UNCHANGED <<effects, keys>>)
              /\ UNCHANGED <<up, pc, history, crashes, attempts>>
\* KeyPerAttempt: a new key (step, attempt) on each attempt.
ExecuteAttempt == Ready /\ pending' = TRUE /\ attempts' = [attempts EXCEPT ![pc] = @ + 1]
                  /\ (IF <<pc, attempts[pc] + 1>> \notin keys
                      THEN effects' = [effects EXCEPT ![pc] = @ + 1] /\ keys' = keys \cup {<<pc, attempts[pc] + 1>>}
                      ELSE UNCHANGED <<effects, keys>>)
                  /\ UNCHANGED <<up, pc, history, crashes>>
\* Transactional: the effect and the record in one step.
ExecuteTx == Ready /\ effects' = [effects EXCEPT ![pc] = @ + 1] /\ history' = pc /\ pc' = pc + 1
             /\ UNCHANGED <<up, pending, crashes, keys, attempts>>
Fair == WF_vars(Replay) /\ WF_vars(Record) /\ WF_vars(Restart)
Spec == Init /\ [][Replay \/ Execute \/ Record \/ Crash \/ Restart]_vars /\ Fair /\ WF_vars(Execute)
SpecKey == Init /\ [][Replay \/ ExecuteKey \/ Record \/ Crash \/ Restart]_vars /\ Fair /\ WF_vars(ExecuteKey)
SpecAttempt == Init /\ [][Replay \/ ExecuteAttempt \/ Record \/ Crash \/ Restart]_vars /\ Fair
               /\ WF_vars(ExecuteAttempt)
SpecTx == Init /\ [][Replay \/ ExecuteTx \/ Crash \/ Restart]_vars /\ WF_vars(Replay) /\ WF_vars(ExecuteTx) /\ WF_vars(Restart)
EffectsNotRepeated == \A s \in 1..Steps: effects[s] <= 1
Live == <>(history = Steps)
====
