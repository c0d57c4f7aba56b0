# probes.py - the usdt Python module as a program uses it, for
# tests/bindings/run.
#
#   python3 probes.py api          checks of the API and its exceptions
#                                  (also: function=None, add_probe while
#                                  enabled, providers in cycles collected),
#                                  one "ok - " / "FAIL - " line each
#   python3 probes.py trace STOP   provider "pyprov" with probes
#                                  request(int, str) and wide(uint64_t,
#                                  int8_t, str, int), enabled in a with
#                                  block; prints "ready PID", fires each
#                                  probe while it is enabled until the
#                                  file STOP exists (60 s at most)
import os
import sys
import time

import usdt

failures = 0


def check(cond, name, why=""):
    global failures
    if cond:
        print("ok - python: " + name)
    else:
        failures += 1
        print("FAIL - python: %s: %s" % (name, why))


def raises(exc, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except exc as e:
        return str(e) or type(e).__name__
    except Exception as e:  # the wrong exception
        return None if exc is None else "wrong: %r" % e
    return None


def api():
    prov = usdt.Provider("pyapi", "mod")
    check(prov.name == "pyapi" and prov.module == "mod" and not prov.enabled,
          "Provider(name, module)")
    p = prov.add_probe("start", ("int", "str"), function="fn")
    check(p.name == "start" and p.function == "fn" and p.types == ("int", "str"),
          "add_probe returns a Probe with name, function and types", repr(p))
    msg = raises(usdt.Error, prov.add_probe, "start", ("int",), function="fn")
    check(msg is not None and "already exists" in msg,
          "a duplicate probe raises usdt.Error with libusdt's message", repr(msg))
    msg = raises(usdt.Error, prov.add_probe, "f", ("double",))
    check(msg is not None and "'double'" in msg, "a type libusdt cannot pass raises usdt.Error",
          repr(msg))
    msg = raises(usdt.Error, prov.add_probe, "bad name")
    check(msg is not None and "invalid probe name" in msg, "a bad probe name raises usdt.Error",
          repr(msg))
    msg = raises(ValueError, prov.add_probe, "many", ["int"] * 33)
    check(msg is not None and "at most 32" in msg, "33 argument types raise ValueError", repr(msg))
    check(issubclass(usdt.Error, RuntimeError), "usdt.Error is a RuntimeError")
    check(not p.enabled and p.fire(1, "x") is None, "a probe of a disabled provider does nothing")
    digits = prov.add_probe("0arg")
    check(digits.name == "0arg", "a probe name may begin with a digit")
    with prov as same:
        check(same is prov and prov.enabled, "with provider: enabled inside")
        check(p.enabled is False, "no tracer: probe.enabled is False")
        p.fire(-1, "str")
        p.fire(2**64 - 1, b"bytes")
        msg = raises(TypeError, p.fire, 1)
        check(msg is not None and "takes 2 arguments (1 given)" in msg,
              "fire with the wrong number of arguments raises TypeError", repr(msg))
        msg = raises(TypeError, p.fire, "x", "y")
        check(msg is not None and "must be int" in msg,
              "fire with a str for an int raises TypeError", repr(msg))
        msg = raises(OverflowError, p.fire, 2**64, "y")
        check(msg is not None, "an int beyond 64 bits raises OverflowError", repr(msg))
        msg = raises(usdt.Error, prov.enable)
        check(msg == "provider is already enabled", "enabling twice raises usdt.Error", repr(msg))
    check(not prov.enabled, "with provider: disabled after")
    msg = raises(usdt.Error, usdt.Provider("9bad").enable)
    check(msg is not None, "enabling a provider without probes raises usdt.Error", repr(msg))
    prov.remove_probe(digits)
    msg = raises(usdt.Error, prov.remove_probe, digits)
    check(msg is not None and "failed to remove" in msg,
          "removing a probe twice raises usdt.Error", repr(msg))
    try:
        with prov:
            raise KeyError("inside")
    except KeyError:
        pass
    check(not prov.enabled, "an exception inside with disables and propagates")
    defaults()
    collected()
    return 1 if failures else 0


def defaults():
    prov = usdt.Provider("pydefaults", "mod")
    prov.add_probe("base", ("int",))
    p = None
    try:
        p = prov.add_probe("fn_none", ("int",), function=None)
    except TypeError as e:
        check(False, "add_probe(name, types, function=None)", repr(e))
    if p is not None:
        check(p.function == "fn_none", "add_probe(name, types, function=None): the function is the name",
              repr(p.function))
    with prov:
        msg = raises(usdt.Error, prov.add_probe, "late", ("int",))
        check(msg is not None and "enabled" in msg,
              "add_probe on an enabled provider raises usdt.Error", repr(msg))
    late = prov.add_probe("later", ("int",))
    with prov:
        check(late.fire(1) is None, "after disable, add_probe works again")


def leaky_images(dirname):
    with open("/proc/self/maps") as f:
        maps = sum(1 for line in f if "-leaky" in line)
    return maps, len([n for n in os.listdir(dirname) if "-leaky" in n])


def collected():
    """Providers that keep one of their probes (a reference cycle) are collected."""
    import gc
    import shutil
    import tempfile

    class Leaky(usdt.Provider):
        def __init__(self, i):
            super().__init__("leaky%d" % i, "mod")
            self.probe = self.add_probe("p", ("int",))
            self.enable()

    dirname = tempfile.mkdtemp(prefix="usdt-py-")
    os.environ["LIBUSDT_DIR"] = dirname
    gc.disable()
    for i in range(200):
        Leaky(i)
    before = leaky_images(dirname)
    gc.enable()
    gc.collect()
    after = leaky_images(dirname)
    del os.environ["LIBUSDT_DIR"]
    check(before[0] >= 600 and before[1] == 200 and after == (0, 0),
          "200 Provider subclasses keeping their probe are collected: no mapping, no file left",
          "mappings, files before gc.collect() %r, after %r" % (before, after))
    shutil.rmtree(dirname, ignore_errors=True)


def trace(stop):
    prov = usdt.Provider("pyprov", "pymod")
    req = prov.add_probe("request", (int, str), function="handler")
    wide = prov.add_probe("wide", ("uint64_t", "int8_t", "str", "int"))
    text = "GET /index.html"
    with prov:
        print("ready", os.getpid(), flush=True)
        end = time.time() + 600  # only a hung test meets it
        while time.time() < end and not os.path.exists(stop):
            if req.enabled:
                req.fire(-42, text)
            if wide.enabled:
                wide.fire(2**64 - 1, -5, "wide", 1234567890123)
            time.sleep(0.02)
    return 0


if __name__ == "__main__":
    sys.exit(api() if sys.argv[1] == "api" else trace(sys.argv[2]))
