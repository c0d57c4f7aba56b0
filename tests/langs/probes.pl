# tests/langs/probes.pl - a Perl program with run-time probes, through
# Devel::DTrace::Provider (built unchanged against usdtc's libusdt by
# tests/langs/run), for the tracers to read.
#
#   perl probes.pl trace STOP   provider plprov, probes ints(int, int),
#                               strs(char *, char *), mixed(char *, int);
#                               prints "ready PID", fires each probe while
#                               it is enabled (always with ALWAYS=1) until
#                               the file STOP exists.
#   perl probes.pl loop N STOP  N times: a provider created, enabled (its
#                               image then in /proc/self/maps), fired,
#                               disabled and destroyed; then "looped PID N
#                               MAPPED" (how many enables mapped an image)
#                               and waits for STOP (the suite looks at its
#                               mappings and files meanwhile).
use strict;
use warnings;
use Devel::DTrace::Provider;

$| = 1;
my ($mode, @rest) = @ARGV;

sub nap { select(undef, undef, undef, 0.02); }

# Whether an image of provider $_[0] is mapped in this process.
sub mapped {
	open(my $m, '<', '/proc/self/maps') or return 0;
	return scalar grep { m{/libusdt-\S*-\Q$_[0]\E\.so$} } <$m>;
}

if ($mode eq 'trace') {
	my ($stop) = @rest;
	my $p = Devel::DTrace::Provider->new('plprov', 'plmod');
	my $ints = $p->add_probe('ints', 'handler', ['integer', 'integer']);
	my $strs = $p->add_probe('strs', 'handler', ['string', 'string']);
	my $mixed = $p->add_probe('mixed', 'handler', ['string', 'integer']);
	$p->enable;
	print "ready $$\n";
	until (-e $stop) {
		$ints->fire(-42, 2147483647) if $ENV{ALWAYS} || $ints->is_enabled;
		$strs->fire('GET', '/index.html') if $ENV{ALWAYS} || $strs->is_enabled;
		$mixed->fire('perl', 5036) if $ENV{ALWAYS} || $mixed->is_enabled;
		nap();
	}
	$p->disable;
} elsif ($mode eq 'loop') {
	my ($n, $stop) = @rest;
	my $mapped = 0;
	for my $i (1 .. $n) {
		my $p = Devel::DTrace::Provider->new('plloop', 'plmod');
		my $probe = $p->add_probe('tick', 'loop', ['integer', 'string']);
		$p->enable;
		$mapped++ if mapped('plloop');
		$probe->fire($i, "round $i");
		$p->disable;
		undef $probe;
		undef $p;
	}
	print "looped $$ $n $mapped\n";
	nap() until -e $stop;
} else {
	die "usage: probes.pl trace STOP | loop N STOP\n";
}
