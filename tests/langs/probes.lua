-- tests/langs/probes.lua - a Lua program with run-time probes, through
-- lua-usdt (compiled unchanged against usdtc's libusdt by tests/langs/run),
-- for the tracers to read.  The same modes as probes.pl:
--
--   lua probes.lua trace STOP PID   provider luaprov: ints(int, int),
--                                   strs(char *, char *), mixed(char *, int);
--                                   "ready PID" (Lua 5.1 cannot know its pid:
--                                   the suite passes it, from $$ of an exec);
--                                   fires once per line read from stdin,
--                                   until STOP exists or stdin ends.
--   lua probes.lua loop N STOP PID  N providers created, enabled, fired and
--                                   disabled, then collected; "looped PID N
--                                   MAPPED" (MAPPED: how many enables
--                                   mapped an image); waits for STOP.
--
-- Lua 5.1 cannot sleep without running a program: stdin paces it instead
-- (the suite writes a line every 50 ms), so that the traced process never
-- forks (a fork per nap slowed Oracle's DTrace, which follows them, to minutes).
require("usdt")

local mode = arg[1]

local function exists(f)
  local h = io.open(f)
  if h then h:close() return true end
  return false
end

-- Whether an image of provider prov is mapped in this process.
local function mapped(prov)
  local h = io.open("/proc/self/maps")
  local maps = h:read("*a")
  h:close()
  return maps:find("/libusdt%-[^\n]*%-" .. prov .. "%.so\n") ~= nil
end

-- The next tick of stdin; false at its end.
local function nap() return io.read("*l") ~= nil end

if mode == "trace" then
  local stop, pid = arg[2], arg[3]
  local p = usdt.provider("luaprov", "luamod")
  local ints = p:probe("handler", "ints", "int", "int")
  local strs = p:probe("handler", "strs", "char *", "char *")
  local mixed = p:probe("handler", "mixed", "char *", "int")
  p:enable()
  print("ready " .. pid)
  io.stdout:flush()
  local always = os.getenv("ALWAYS")
  while not exists(stop) and nap() do
    if always or ints:enabled() ~= 0 then ints:fire(-42, 2147483647) end
    if always or strs:enabled() ~= 0 then strs:fire("GET", "/index.html") end
    if always or mixed:enabled() ~= 0 then mixed:fire("lua", 51) end
  end
  p:disable()
elseif mode == "loop" then
  local n, stop, pid = tonumber(arg[2]), arg[3], arg[4]
  local nmapped = 0
  for i = 1, n do
    local p = usdt.provider("lualoop", "luamod")
    local probe = p:probe("loop", "tick", "int", "char *")
    p:enable()
    if mapped("lualoop") then nmapped = nmapped + 1 end
    probe:fire(i, "round " .. i)
    p:disable()
  end
  collectgarbage("collect")
  print("looped " .. pid .. " " .. n .. " " .. nmapped)
  io.stdout:flush()
  while not exists(stop) and nap() do end
else
  error("usage: probes.lua trace STOP PID | loop N STOP PID")
end
