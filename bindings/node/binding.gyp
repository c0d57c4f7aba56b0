# binding.gyp - node-gyp's build of the native half (src/binding.c), linked
# with this repository's libusdt.a (make libusdt first; LIBUSDT_ROOT names
# the repository when this directory is copied elsewhere, LIBUSDT_A the
# archive, LIBUSDT_LDFLAGS extra linker flags: a sanitizer build's).
{
  "variables": {
    "libusdt_root%": "<!(node -p \"process.env.LIBUSDT_ROOT || require('path').resolve('../..')\")",
    "libusdt_a%": "<!(node -p \"process.env.LIBUSDT_A || require('path').resolve(process.env.LIBUSDT_ROOT || '../..', 'build/libusdt.a')\")"
  },
  "targets": [{
    "target_name": "usdt_provider",
    "sources": ["src/binding.c"],
    "include_dirs": ["<(libusdt_root)/libusdt"],
    "cflags": ["-Wall", "-Wextra", "-Werror"],
    "libraries": ["<(libusdt_a)", "-lelf", "-ldl", "-lpthread"],
    "ldflags": ["<!@(node -p \"process.env.LIBUSDT_LDFLAGS || ''\")"]
  }]
}
