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
# `8f@-8(%rbp)`, which <sys/sdt.h> writes): $_probe_argN of such a probe is
# an error for every argument.  usdtc notes a float as its bits, an
# unsigned integer of its size, which gdb reads and this script turns back
# into the float; for a probe with one it also prints NAMEx, each float as
# its bits in hex, the line bpftrace's reading is compared with.  So on
# every architecture of tests/cross.  A struct node is read with the
# target's pointer size and byte order.
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
    "qc": "i i i i s s", "qv": "i i i i s s", "qk": "i i i i i i",
    "kon": "i i i s i i", "fk": "f8 f4 f8 f4", "f8": "f8 i f4 i i i i f8",
    "a7": "i i s i i s i", "a8": "i i i i i i s i", "a9": "i i i i i i i i s",
    "a10": "s i i i i i i i i i", "a11": "i i i i i i i i i i i",
    "a12": "i i s i i s i i s i i s",
}

out = open(os.environ["FID_OUT"], "w")
last = None


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


def from_bits(kind, v):
    bits = int(v) & (0xffffffff if kind == "f4" else 0xffffffffffffffff)
    if kind == "f4":
        return "%.9g" % struct.unpack("<f", struct.pack("<I", bits))[0], "%x" % bits
    return "%.9g" % struct.unpack("<d", struct.pack("<Q", bits))[0], "%x" % bits


class ProbeArgs(gdb.Breakpoint):
    def __init__(self, name):
        super().__init__("-probe-stap fid:" + name, internal=True)
        self.probe = name

    def stop(self):
        try:
            kinds = KINDS[self.probe].split()
            argc = int(gdb.parse_and_eval("$_probe_argc"))
            vals, xvals = [], []
            for i, k in enumerate(kinds):
                v = gdb.parse_and_eval("$_probe_arg%d" % i)
                if k in ("f4", "f8"):
                    text, bits = from_bits(k, v)
                    vals.append(text)
                    xvals.append(bits)
                else:
                    vals.append(show(k, v))
                    xvals.append(vals[-1])
            line = " ".join([self.probe] + vals)
            if argc != len(kinds):
                line += " (argc %d)" % argc
            if ("f4" in kinds or "f8" in kinds) and self.probe != "f8":
                line += "\n" + " ".join([self.probe + "x"] + xvals)
        except gdb.error as e:
            line = "%s gdb error: %s" % (self.probe, e)
        # One firing seen through two notes (see `uniq` in run) writes
        # its lines twice in a row: once, also for a two-line reading.
        global last
        if line != last:
            out.write(line + "\n")
            out.flush()
        last = line
        return False


gdb.execute("set pagination off")
gdb.execute("set confirm off")
for probe in KINDS:
    ProbeArgs(probe)
