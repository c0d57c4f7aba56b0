#!/usr/bin/env python3
"""gen_frontend.py SHAPE N - a provider file of size N in one shape, on
stdout, for bench/frontend and tests/hostile: every stage of the front
end must take time linear in N.

shapes:
  stars     one argument type with N '*'
  strings   a clause with N string literals
  longstr   a clause with one string literal of N bytes
  probes    one provider with N probes
  typedefs  N typedefs, each used by a probe argument
  providers N providers of one probe each
  badnames  N providers whose names end in a digit (N errors)
  comment   one comment of N bytes
  ident     a provider name of N bytes (an error: too long)
  nesting   a clause with braces nested N deep
  quals     one argument type with N 'const' qualifiers
  longs     one argument type of N 'long' words (a warning: unknown type)
  arrays    one argument with N array suffixes '[1]'
  dimexpr   one array dimension of N tokens '1+1+...+1'
  fnargs    a function pointer argument taking N 'int' arguments
  parens    a function pointer argument whose parameter is in N nested
            parentheses (bison's stack allows N < 4,990)
"""
import sys


def main():
    shape, n = sys.argv[1], int(sys.argv[2])
    out = sys.stdout
    if shape == "stars":
        out.write("provider p { probe a(int " + "*" * n + "); };\n")
    elif shape == "strings":
        out.write("provider p { probe a(int); };\np:::a {\n")
        for i in range(n):
            out.write('\tx = "string number %d with \\"escapes\\" \\n";\n' % i)
        out.write("}\n")
    elif shape == "longstr":
        out.write('provider p { probe a(int); };\np:::a { x = "' + "s" * n + '"; }\n')
    elif shape == "probes":
        out.write("provider p {\n")
        for i in range(n):
            out.write("\tprobe p%d(int, char *, long);\n" % i)
        out.write("};\n")
    elif shape == "providers":
        for i in range(n):
            out.write("provider p%dx { probe a(int); };\n" % i)
    elif shape == "badnames":
        for i in range(n):
            out.write("provider p%d { probe a(int); };\n" % i)
    elif shape == "typedefs":
        for i in range(n):
            out.write("typedef unsigned long t%d_t;\n" % i)
        out.write("provider p {\n")
        for i in range(n):
            out.write("\tprobe p%d(t%d_t);\n" % (i, i))
        out.write("};\n")
    elif shape == "comment":
        out.write("/*" + "c" * n + "*/\nprovider p { probe a(int); };\n")
    elif shape == "ident":
        out.write("provider " + "a" * n + " { probe a(int); };\n")
    elif shape == "nesting":
        out.write("provider p { probe a(int); };\np:::a " + "{" * n + "}" * n + "\n")
    elif shape == "quals":
        out.write("provider p { probe a(" + "const " * n + "int); };\n")
    elif shape == "longs":
        out.write("provider p { probe a(" + "long " * n + "); };\n")
    elif shape == "arrays":
        out.write("provider p { probe a(int x" + "[1]" * n + "); };\n")
    elif shape == "dimexpr":
        out.write("provider p { probe a(int x[" + "1+" * n + "1]); };\n")
    elif shape == "fnargs":
        out.write("provider p { probe a(int (*)(" + "int," * n + "int)); };\n")
    elif shape == "parens":
        out.write("provider p { probe a(int (*)(" + "(" * n + "int" + ")" * n + ")); };\n")
    else:
        sys.exit("unknown shape " + shape)


main()
