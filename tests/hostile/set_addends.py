#!/usr/bin/env python3
"""set_addends.py OBJ SECTION ADDEND... - overwrite the r_addend of the
relocations that apply to SECTION in the ELF64 little-endian object OBJ,
in order (the first gets the first ADDEND, ...), in place.  The addends
are 64-bit two's complement values (0x8000000000000000 is INT64_MIN).
Prints how many were changed; exits 1 if none."""
import struct
import sys


def main():
    path, target = sys.argv[1], sys.argv[2]
    addends = [int(a, 0) & (2**64 - 1) for a in sys.argv[3:]]
    data = bytearray(open(path, "rb").read())
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    shdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
             for i in range(shnum)]
    stroff = shdrs[shstrndx][4]

    def name(sh):
        end = data.index(b"\0", stroff + sh[0])
        return data[stroff + sh[0]:end].decode()

    changed = 0
    for sh in shdrs:
        if sh[1] != 4 or name(shdrs[sh[7]]) != target:  # SHT_RELA, sh_info
            continue
        for k in range(sh[5] // 24):
            if changed == len(addends):
                break
            struct.pack_into("<Q", data, sh[4] + 24 * k + 16, addends[changed])
            changed += 1
    open(path, "wb").write(data)
    print(changed)
    return 0 if changed else 1


sys.exit(main())
