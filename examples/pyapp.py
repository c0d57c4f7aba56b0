# pyapp.py - a Python program with probes defined at run time, for
# examples/libusdt_demo.sh: provider "pyapp", probe request(int, str),
# fired for each of a few fake requests a second until the file named by
# argv[1] exists (30 s at most).
import os
import sys
import time

import usdt

prov = usdt.Provider("pyapp", "demo")
request = prov.add_probe("request", (int, str), function="handle")
paths = ["/", "/index.html", "/api/users", "/favicon.ico"]
with prov:
    print("ready", os.getpid(), flush=True)
    end, n = time.time() + 30, 0
    while time.time() < end and not os.path.exists(sys.argv[1]):
        if request.enabled:
            request.fire(n, paths[n % len(paths)])
        n += 1
        time.sleep(0.1)
