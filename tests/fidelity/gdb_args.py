# gdb_args.py - tests/fidelity's reader of probe arguments, run inside gdb:
#
#   gdb -batch -nx -x gdb_args.py -ex run --args ./fid   (FID_OUT=file)
#
# Why Python: a breakpoint per probe whose stop() prints every argument
# through gdb's own $_probe_argN (what gdb users read) and lets the program
# run on, so one gdb run reads every probe of a binary.  Each line is
# written as fid.c prints what it passed (see its header comment).
#
# gdb 13 cannot parse a floating operand of a stapsdt note (`4f@%xmm0`,
# which <sys/sdt.h> writes too): $_probe_argN of such a probe is an error
# for every argument.  So a probe with a floating argument is read from the
# registers its note names, in the order of the x86_64 calling convention;
# on other architectures (tests/cross) such a probe is not read.  A struct
# node is read with the target's pointer size and byte order.
import os
import struct

import gdb

# Per probe, what each argument is: i integer, f4/f8 float/double, s string,
# bN N bytes at a pointer, n a struct node *, big a struct big * (3 longs).
KINDS = {
    "str_copy": "s", "str_loop": "s i", "str_init": "s", "str_wrap": "s",
    "pt": "b8", "arr": "b16 i", "deep": "n", "globals": "s s", "tls": "s b4",
    "lit": "s s", "vol": "i s", "tdef": "s", "byval": "big i", "six": "s s s s s s",
    "w8": "i i i i", "w16": "i i i i", "w32": "i i i i", "w64": "i i i i",
    "wlong": "i i i i i i", "misc": "i i i i i i", "flt": "f4 f8 i f4",
    "a7": "i i s i i s i", "a8": "i i i i i i s i", "a9": "i i i i i i i i s",
    "a10": "s i i i i i i i i i", "a11": "i i i i i i i i i i i",
    "a12": "i i s i i s i i s i i s",
}

out = open(os.environ["FID_OUT"], "w")


def mem(addr, n):
    return bytes(gdb.selected_inferior().read_memory(addr, n))


def cstring(addr):
    s = b""
    while len(s) < 256:
        b = mem(addr + len(s), 1)
        if b == b"\0":
            break
        s += b
    return s.decode("latin-1")


def address(v):
    return int(v.cast(gdb.lookup_type("unsigned long")))


def show(kind, v):
    if kind == "i":
        return str(int(v))
    if kind == "s":
        return cstring(address(v))
    if kind == "n":
        psize = gdb.lookup_type("void").pointer().sizeof
        order = ">" if "big" in gdb.execute("show endian", to_string=True) else "<"
        raw = mem(address(v), psize + 4)
        name, val = struct.unpack(order + ("Q" if psize == 8 else "I") + "i", raw)
        return "%s/%d" % (cstring(name), val)
    if kind == "big":
        return mem(address(v), 3 * gdb.lookup_type("long").sizeof).hex()
    return mem(address(v), int(kind[1:])).hex()


def by_registers(kinds):
    gprs = ["$rdi", "$rsi", "$rdx", "$rcx", "$r8", "$r9"]
    vals, ngpr, nxmm = [], 0, 0
    for k in kinds:
        if k in ("f4", "f8"):
            lane = ".v4_float[0]" if k == "f4" else ".v2_double[0]"
            v = float(gdb.parse_and_eval("$xmm%d%s" % (nxmm, lane)))
            vals.append("%.9g" % v)
            nxmm += 1
        else:
            vals.append(str(int(gdb.parse_and_eval("(int)" + gprs[ngpr]))))
            ngpr += 1
    return vals


def is_x86_64():
    return "x86-64" in gdb.execute("show architecture", to_string=True)


class ProbeArgs(gdb.Breakpoint):
    def __init__(self, name):
        super().__init__("-probe-stap fid:" + name, internal=True)
        self.probe = name

    def stop(self):
        try:
            kinds = KINDS[self.probe].split()
            if ("f4" in kinds or "f8" in kinds) and not is_x86_64():
                line = self.probe + " (floating arguments: read on x86_64 only)"
                out.write(line + "\n")
                out.flush()
                return False
            if "f4" in kinds or "f8" in kinds:
                argc = len(kinds)
                vals = by_registers(kinds)
            else:
                argc = int(gdb.parse_and_eval("$_probe_argc"))
                vals = [show(k, gdb.parse_and_eval("$_probe_arg%d" % i))
                        for i, k in enumerate(kinds)]
            line = " ".join([self.probe] + vals)
            if argc != len(kinds):
                line += " (argc %d)" % argc
        except gdb.error as e:
            line = "%s gdb error: %s" % (self.probe, e)
        out.write(line + "\n")
        out.flush()
        return False


gdb.execute("set pagination off")
gdb.execute("set confirm off")
for probe in KINDS:
    ProbeArgs(probe)
