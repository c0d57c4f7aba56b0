# tests/casts/gdb_read.py - every argument of every cv probe, as gdb reads it:
#
#   gdb -batch -nx -x gdb_read.py -ex run --args ./casts   (CASTS_OUT=file)
#
# Why Python: one breakpoint per probe (on its stapsdt note) whose stop()
# writes `NAME arg0 arg1 ...` from gdb's own $_probe_argN, each as the
# integer of the note's size and sign, and lets the program run on; the
# lines are what casts.c prints it passed.
import os

import gdb

PROBES = ["one", "two", "six", "seven", "eight", "twelve", "ptrs", "widths", "enums"]
out = open(os.environ["CASTS_OUT"], "w")


class ProbeArgs(gdb.Breakpoint):
    def __init__(self, name):
        super().__init__("-probe-stap cv:" + name, internal=True)
        self.name = name

    def stop(self):
        n = int(gdb.parse_and_eval("$_probe_argc"))
        vals = [str(int(gdb.parse_and_eval("$_probe_arg%d" % i))) for i in range(n)]
        out.write(" ".join([self.name] + vals) + "\n")
        out.flush()
        return False


for p in PROBES:
    ProbeArgs(p)
