#!/usr/bin/env python3
"""set_shdr.py SRC DST SECTION FIELD VALUE - copy the ELF64 little-endian
object SRC to DST with one field of SECTION's header changed: FIELD is
size, entsize or addralign; VALUE is a number, or -N to take N off the
field.  Exits 1 if SRC has no such section.  (tests/hostile makes the
objects libelf would quietly normalise with it.)"""
import struct
import sys

FIELDS = {"size": 32, "addralign": 48, "entsize": 56}


def main():
    src, dst, section, field, value = sys.argv[1:6]
    data = bytearray(open(src, "rb").read())
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    stroff, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 24)
    found = False
    for i in range(shnum):
        at = shoff + i * shentsize
        name, = struct.unpack_from("<I", data, at)
        end = data.index(b"\0", stroff + name)
        if data[stroff + name:end].decode() != section:
            continue
        old, = struct.unpack_from("<Q", data, at + FIELDS[field])
        new = old - int(value[1:], 0) if value.startswith("-") else int(value, 0)
        struct.pack_into("<Q", data, at + FIELDS[field], new)
        found = True
    open(dst, "wb").write(data)
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
