# tests/langs/probes.rb - a Ruby program with run-time probes, through
# ruby-usdt (built unchanged against usdtc's libusdt by tests/langs/run),
# for the tracers to read.  The same modes as probes.pl:
#
#   ruby probes.rb trace STOP   provider rbprov: ints(int, int),
#                               strs(char *, char *), mixed(char *, int);
#                               "ready PID"; fires until STOP exists
#                               (ruby-usdt's fire does nothing while the
#                               probe is not enabled).
#   ruby probes.rb loop N STOP  N providers created, enabled, fired and
#                               disabled, then dropped to the collector;
#                               "looped PID N MAPPED" (MAPPED: how many
#                               enables mapped an image); waits for STOP.
require 'usdt'

$stdout.sync = true

# Whether an image of provider prov is mapped in this process.
def mapped?(prov)
  File.readlines('/proc/self/maps').any? { |l| l =~ %r{/libusdt-\S*-#{prov}\.so$} }
end
mode, *rest = ARGV

case mode
when 'trace'
  stop = rest[0]
  p = USDT::Provider.create(:rbprov, :rbmod)
  ints = p.probe(:handler, :ints, :integer, :integer)
  strs = p.probe(:handler, :strs, :string, :string)
  mixed = p.probe(:handler, :mixed, :string, :integer)
  p.enable
  puts "ready #{Process.pid}"
  until File.exist?(stop)
    ints.fire(-42, 2147483647)
    strs.fire('GET', '/index.html')
    mixed.fire('ruby', 301)
    sleep 0.02
  end
  p.disable
when 'loop'
  n = rest[0].to_i
  stop = rest[1]
  mapped = 0
  n.times do |i|
    p = USDT::Provider.create(:rbloop, :rbmod)
    probe = p.probe(:loop, :tick, :integer, :string)
    p.enable
    mapped += 1 if mapped?('rbloop')
    probe.fire(i, "round #{i}")
    p.disable
  end
  GC.start
  puts "looped #{Process.pid} #{n} #{mapped}"
  sleep 0.02 until File.exist?(stop)
else
  abort 'usage: probes.rb trace STOP | loop N STOP'
end
