# setup.py - builds the `usdt` Python module (usdtmodule.c) over libusdt.
#
#   python3 -m pip install ./bindings/python      (from the repository)
#
# libusdt is linked in statically from this repository's build tree: the
# archive build/libusdt.a (made with `make libusdt` at the top of the
# repository, which this script runs when the archive is missing), so the
# module needs nothing at run time but libelf.  LIBUSDT_A names another
# archive; with LIBUSDT_PKGCONFIG=1 the installed libusdt (pkg-config
# libusdt) is linked instead.
import os
import shlex
import subprocess

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))
root = os.environ.get("LIBUSDT_ROOT") or os.path.dirname(os.path.dirname(here))


def libusdt_flags():
    """Compiler and linker arguments for libusdt: (include_dirs, extra_objects, libraries, link_args)."""
    if os.environ.get("LIBUSDT_PKGCONFIG") == "1":
        cflags = shlex.split(subprocess.check_output(["pkg-config", "--cflags", "libusdt"], text=True))
        libs = shlex.split(subprocess.check_output(["pkg-config", "--libs", "libusdt"], text=True))
        return [f[2:] for f in cflags if f.startswith("-I")], [], [], libs
    archive = os.environ.get("LIBUSDT_A", os.path.join(root, "build", "libusdt.a"))
    if not os.path.exists(archive) and "LIBUSDT_A" not in os.environ:
        subprocess.check_call(["make", "-C", root, "libusdt"])
    return [os.path.join(root, "libusdt")], [archive], ["elf", "dl", "pthread"], []


include_dirs, objects, libraries, link_args = libusdt_flags()
link_args += shlex.split(os.environ.get("LIBUSDT_LDFLAGS", ""))

setup(
    name="usdt",
    version="1.0.0",
    description="USDT probes defined at run time, for bpftrace, perf, gdb and DTrace (libusdt)",
    ext_modules=[
        Extension(
            "usdt",
            sources=[os.path.join(here, "usdtmodule.c")],
            include_dirs=include_dirs,
            extra_objects=objects,
            libraries=libraries,
            extra_link_args=link_args,
            extra_compile_args=["-Wall", "-Wextra", "-Werror", "-Wno-missing-field-initializers",
                                "-Wno-cast-function-type"],
        )
    ],
)
