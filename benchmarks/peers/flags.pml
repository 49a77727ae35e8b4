/* The flags benchmark in Promela: benchmarks/models/flags.spec.
 * N processes, each toggling its own flag and advancing a shared counter
 * modulo 7 in one atomic step (d_step). Each process is a one-state loop, so
 * the program counters add nothing: 2^N * 7 reachable states (458,752 for
 * N = 16), as in tlacheck, and SPIN's transitions (stored + matched) equal
 * tlacheck's states generated. */
#ifndef N
#define N 16
#endif

bool flag[N];
byte shared;

active [N] proctype P() {
    do
    :: d_step { flag[_pid] = !flag[_pid]; shared = (shared + 1) % 7 }
    od
}
