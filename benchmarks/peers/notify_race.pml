/* The scaled notify race in Promela: benchmarks/models/notify_race.spec.
 * Model values and enums are small ints; each map over Tasks is an array; the
 * queue of (task, reply) pairs is a channel (FIFO; capacity 2 * T, as each
 * task notifies at most twice); the set `delivered` is a bitmask with bit
 * 2 * t + reply. Every action is one d_step of a one-state loop, so program
 * counters add nothing and the reachable states are the same as tlacheck's. */
#ifndef T
#define T 4
#endif

#define RUNNING 0
#define FINISHED 1
#define STOPPED 2
#define IDLE 0
#define REGISTERED 1
#define DONE 2
#define OLDREPLY 0
#define ANSWER 1

byte runner[T];
byte follow[T];
bool notified[T];
bool sent[T];
bool stranded[T];
chan queue = [2 * T] of { byte, byte };
short delivered;              /* bit 2 * t + reply */
hidden byte rt, rr;           /* the message ParentReads takes; not part of the state */

active [T] proctype Task() {
    do
    :: d_step { runner[_pid] == RUNNING ->      /* Finish */
                runner[_pid] = FINISHED;
                if :: sent[_pid] -> stranded[_pid] = true :: else -> skip fi }
    :: d_step { runner[_pid] == FINISHED ->     /* StopNotify */
                runner[_pid] = STOPPED;
                if :: !notified[_pid] -> notified[_pid] = true; queue!_pid,OLDREPLY :: else -> skip fi }
    :: d_step { !sent[_pid] ->                  /* Send */
                sent[_pid] = true;
                if :: runner[_pid] != RUNNING -> stranded[_pid] = true :: else -> skip fi }
    :: d_step { stranded[_pid] && follow[_pid] == IDLE ->   /* StartFollowOn */
                notified[_pid] = false; follow[_pid] = REGISTERED }
    :: d_step { follow[_pid] == REGISTERED ->   /* FollowOnNotifies */
                follow[_pid] = DONE;
                if :: !notified[_pid] -> notified[_pid] = true; queue!_pid,ANSWER :: else -> skip fi }
    od
}

active proctype Parent() {
    do
    :: d_step { queue?rt,rr -> delivered = delivered | (1 << (2 * rt + rr)); rt = 0; rr = 0 }
    od
}
