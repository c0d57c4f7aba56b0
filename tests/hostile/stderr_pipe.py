#!/usr/bin/env python3
"""stderr_pipe.py MODE PROG ARGS... - run PROG with DTRACE_DOF_INIT_DEBUG
set and fd 2 either a pipe whose reader is gone (MODE broken) or closed
(MODE closed), and SIGPIPE at its default action.  Prints PROG's stdout
and "exit N" or "signal N"; exits 0 when PROG exited 0."""
import os
import subprocess
import sys

mode, argv = sys.argv[1], sys.argv[2:]
env = dict(os.environ, DTRACE_DOF_INIT_DEBUG="1")
if mode == "broken":
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=w, env=env,
                       timeout=60, restore_signals=True)
    os.close(w)
else:
    p = subprocess.run(argv, stdout=subprocess.PIPE, env=env, timeout=60,
                       restore_signals=True,
                       preexec_fn=lambda: os.close(2))
sys.stdout.write(p.stdout.decode())
print("exit %d" % p.returncode if p.returncode >= 0 else "signal %d" % -p.returncode)
sys.exit(0 if p.returncode == 0 else 1)
