-- tests/langs/probes.lua - a Lua program with run-time probes, through
-- lua-usdt (compiled unchanged against usdtc's libusdt by tests/langs/run),
-- for the tracers to read.  The same modes as probes.pl:
--
--   lua probes.lua trace STOP PID   provider luaprov: ints(int, int),
--                                   strs(char *, char *), mixed(char *, int);
--                                   "ready PID" (Lua 5.1 cannot know its pid:
--                                   the suite passes it, from $$ of an exec);
--                                   fires until STOP exists.
--   lua probes.lua loop N STOP PID  N providers created, enabled, fired and
--                                   disabled, then collected; "looped PID N".
require("usdt")

local mode = arg[1]

local function exists(f)
  local h = io.open(f)
  if h then h:close() return true end
  return false
end

-- Lua 5.1 has no sleep of its own.
local function nap() os.execute("sleep 0.05") end

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
  while not exists(stop) do
    if always or ints:enabled() ~= 0 then ints:fire(-42, 2147483647) end
    if always or strs:enabled() ~= 0 then strs:fire("GET", "/index.html") end
    if always or mixed:enabled() ~= 0 then mixed:fire("lua", 51) end
    nap()
  end
  p:disable()
elseif mode == "loop" then
  local n, stop, pid = tonumber(arg[2]), arg[3], arg[4]
  for i = 1, n do
    local p = usdt.provider("lualoop", "luamod")
    local probe = p:probe("loop", "tick", "int", "char *")
    p:enable()
    probe:fire(i, "round " .. i)
    p:disable()
  end
  collectgarbage("collect")
  print("looped " .. pid .. " " .. n)
  io.stdout:flush()
  while not exists(stop) do nap() end
else
  error("usage: probes.lua trace STOP PID | loop N STOP PID")
end
