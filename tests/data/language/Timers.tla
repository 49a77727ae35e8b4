---- MODULE Timers ----
\* timers.spec in TLA+, for TLC (tests/test_language_tlc.py); flight = -1 stands for `none`
EXTENDS Integers
CONSTANTS Period, Delay, Timeout
VARIABLES crashed, untilBeat, flight, silence, suspected
vars == <<crashed, untilBeat, flight, silence, suspected>>
Min(a, b) == IF a < b THEN a ELSE b
Init == crashed = FALSE /\ untilBeat = Period /\ flight = -1 /\ silence = 0 /\ suspected = FALSE
Beat == /\ ~crashed /\ untilBeat = 0 /\ flight = -1
        /\ flight' = Delay /\ untilBeat' = Period /\ UNCHANGED <<crashed, silence, suspected>>
Arrive == flight # -1 /\ flight' = -1 /\ silence' = 0 /\ UNCHANGED <<crashed, untilBeat, suspected>>
Crash == ~crashed /\ crashed' = TRUE /\ UNCHANGED <<untilBeat, flight, silence, suspected>>
Suspect == ~suspected /\ silence >= Timeout /\ suspected' = TRUE /\ UNCHANGED <<crashed, untilBeat, flight, silence>>
\* (no disjunction in the guard: TLC would generate a successor per true disjunct)
Tick == /\ IF crashed THEN TRUE ELSE untilBeat > 0
        /\ flight # 0
        /\ untilBeat' = IF ~crashed THEN untilBeat - 1 ELSE untilBeat
        /\ flight' = IF flight # -1 THEN flight - 1 ELSE flight
        /\ silence' = Min(silence + 1, Timeout)
        /\ UNCHANGED <<crashed, suspected>>
Next == Beat \/ Arrive \/ Crash \/ Suspect \/ Tick
Spec == Init /\ [][Next]_vars /\ WF_vars(Tick) /\ WF_vars(Beat) /\ WF_vars(Arrive) /\ WF_vars(Suspect)
NoFalseSuspicion == suspected => crashed
Detects == crashed ~> suspected
====
