/*
 * node_cases.js - node-dtrace-provider's own test cases, re-expressed for
 * bpftrace, for tests/bindings/run.
 *
 * Each case sets providers up as the original test's program did, then
 * waits (synchronously, so nothing fires early) until the runner's
 * bpftrace is attached, then fires as the original did.  The original
 * cases ran under `dtrace -Z -c`, which also sees probes that appear
 * after it starts; bpftrace attaches to the probes there are when it
 * starts, so cases that enable and disable repeatedly are traced after
 * their last enable.  For each case: `bt`, the bpftrace clauses (each
 * counts an event in @n); `events`, how many to wait for; `want`, the
 * lines bpftrace must print (compared sorted), or `accept`, a test of them.
 *
 * Two cases make several providers of one name with the same probe name
 * (create-destroy, disambiguation).  bpftrace 0.17 (bcc) resolves
 * provider:probe per process, not per file, so it attaches every match to
 * one of those objects: it reads the events of one provider, and cannot
 * tell the others apart.  There bpftrace must see events of that kind
 * with values the program fired, and discover.c (which lists probes per
 * file, as newer tracers do) must find every provider's probe.
 *
 *	node node_cases.js list			the case names
 *	node node_cases.js script NAME		the bpftrace program
 *	node node_cases.js want NAME		the expected lines
 *	node node_cases.js run NAME GOFILE	the program ("ready PID", then
 *						fires once GOFILE exists)
 */
'use strict';

var fs = require('fs');
var d = require(process.env.DTRACE_PROVIDER || 'dtrace-provider');

/*
 * The stack slot of argument k (k >= 6) at an x86_64 probe unit's
 * tracepoint: the unit has popped its return address, so argument 6 is at
 * 0(%rsp), as at a call site (compiler/model/arch_x86_64.c).
 */
function stackArg(k) {
    return '*(uint64 *)(reg("sp") + ' + 8 * (k - 6) + ')';
}

var letters = 'abcdefghijklmnopqrstuvwxyzABCDEF'.split('');

var cases = {
    basic: {
        setup: function () {
            var provider = d.createDTraceProvider('nodeapp');
            var probe = provider.addProbe('p1', 'int', 'char *');
            provider.enable();
            return function () { probe.fire(function () { return [42, 'forty-two']; }); };
        },
        bt: 'usdt:*:nodeapp:p1 { printf("%d %s\\n", arg0, str(arg1)); @n++; }',
        events: 1, want: ['42 forty-two'],
    },
    '32probe': {
        setup: function () {
            var types = [];
            for (var i = 0; i < 32; i++) types.push('int');
            var provider = d.createDTraceProvider('testlibusdt');
            var probe = provider.addProbe.apply(provider, ['32probe'].concat(types));
            provider.enable();
            return function () {
                var args = [];
                for (var n = 1; n <= 32; n++) {
                    args.push(n);
                    probe.fire(function () { return args; });
                }
            };
        },
        bt: 'usdt:*:testlibusdt:32probe { printf("%d %d %d %d\\n", arg0, arg5, ' +
            stackArg(6) + ', ' + stackArg(31) + '); @n++; }',
        events: 32,
        want: (function () {
            var w = [];
            for (var n = 1; n <= 32; n++)
                w.push(['1', n >= 6 ? '6' : '0', n >= 7 ? '7' : '0', n === 32 ? '32' : '0'].join(' '));
            return w;
        })(),
    },
    '32probe-char': {
        setup: function () {
            var types = [];
            for (var i = 0; i < 32; i++) types.push('char *');
            var provider = d.createDTraceProvider('testlibusdt');
            var probe = provider.addProbe.apply(provider, ['32probe'].concat(types));
            provider.enable();
            return function () { probe.fire(function () { return letters; }); };
        },
        bt: 'usdt:*:testlibusdt:32probe { printf("%s %s %s %s\\n", str(arg0), str(arg5), str(' +
            stackArg(6) + '), str(' + stackArg(31) + ')); @n++; }',
        events: 1, want: ['a f g F'],
    },
    'add-probes': {
        setup: function () {
            var dtp = d.createDTraceProvider('nodeapp');
            dtp.addProbe('probe0', 'int');
            dtp.enable();
            for (var i = 1; i < 10; i++) {
                dtp.addProbe('probe' + i, 'int');
                dtp.disable();
                dtp.enable();
            }
            return function () {
                for (var j = 0; j < 10; j++)
                    dtp.fire('probe' + j, function (k) { return [k]; }, j);
            };
        },
        bt: 'usdt:*:nodeapp:probe* { printf("%s %d\\n", probe, arg0); @n++; }',
        events: 10,
        want: (function () {
            var w = [];
            for (var j = 0; j < 10; j++) w.push('probe' + j + ' ' + j);
            return w;
        })(),
        filter: function (line) { return line.replace(/^usdt:.*:nodeapp:/, ''); },
    },
    'args-after-cb-1': {
        setup: function () {
            var provider = d.createDTraceProvider('nodeapp');
            var probe = provider.addProbe('after1', 'int', 'char *', 'int');
            provider.enable();
            return function () {
                probe.fire(function (n1, s, n2) { return [n1, s, n2 + 5]; }, 42, 'forty-two', 10);
            };
        },
        bt: 'usdt:*:nodeapp:after1 { printf("%d %s %d\\n", arg0, str(arg1), arg2); @n++; }',
        events: 1, want: ['42 forty-two 15'],
    },
    'args-after-cb-2': {
        setup: function () {
            var provider = d.createDTraceProvider('nodeapp');
            provider.addProbe('after1', 'int', 'char *', 'int');
            provider.enable();
            return function () {
                provider.fire('after1', function (n1, s, n2) { return [n1, s, n2 + 5]; },
                    42, 'forty-two', 10);
            };
        },
        bt: 'usdt:*:nodeapp:after1 { printf("%d %s %d\\n", arg0, str(arg1), arg2); @n++; }',
        events: 1, want: ['42 forty-two 15'],
    },
    'create-destroy': {
        setup: function () {
            var all = [];
            for (var i = 0; i < 10; i++) {
                var dtp = d.createDTraceProvider('nodeapp');
                dtp.addProbe('probe1', 'int');
                dtp.enable();
                all.push(dtp);
            }
            return function () {
                all.forEach(function (dtp, i) { dtp.fire('probe1', function () { return [i]; }); });
            };
        },
        bt: 'usdt:*:nodeapp:probe1 { printf("%d\\n", arg0); @n++; }',
        events: 1, files: 10,
        accept: function (lines) {
            return lines.length > 0 && lines.every(function (l) { return /^[0-9]$/.test(l); });
        },
    },
    disambiguation: {
        setup: function () {
            var specs = [[null, ['probe1', 'probe2']], [null, ['probe3', 'probe1']],
                ['mymod1', ['probe1', 'probe2']], ['mymod2', ['probe1', 'probe3']]];
            var provs = specs.map(function (s) {
                var dtp = s[0] ? d.createDTraceProvider('test', s[0]) : d.createDTraceProvider('test');
                s[1].forEach(function (name) { dtp.addProbe(name, 'int', 'int'); });
                dtp.enable();
                return dtp;
            });
            return function () {
                provs.forEach(function (dtp, i) {
                    dtp.fire('probe1', function () { return [12, i % 2 ? 73 : 3]; });
                });
            };
        },
        bt: 'usdt:*:test:probe1 { printf("%d %d\\n", arg0, arg1); @n++; }',
        events: 1, files: 4,
        accept: function (lines) {
            return lines.length > 0 && lines.every(function (l) { return /^12 (3|73)$/.test(l); });
        },
    },
    'enabled-disabled': {
        setup: function () {
            var dtp = d.createDTraceProvider('nodeapp');
            dtp.addProbe('probe1', 'int');
            dtp.enable();
            for (var i = 1; i <= 10; i++) {
                dtp.enable();
                dtp.fire('probe1', function () { return [i]; });
                dtp.disable();
            }
            dtp.fire('probe1', function () { return [-1]; });	/* disabled: nothing */
            dtp.enable();
            return function () {
                dtp.fire('probe1', function () { return [42]; });
                dtp.disable();
                dtp.fire('probe1', function () { return [43]; });
            };
        },
        bt: 'usdt:*:nodeapp:probe1 { printf("%d\\n", arg0); @n++; }',
        events: 1, want: ['42'],
    },
    enabledagain: {
        setup: function () {
            var dtp = d.createDTraceProvider('nodeapp');
            dtp.addProbe('probe1', 'int');
            dtp.enable();
            dtp.enable();
            return function () {
                dtp.fire('probe1', function () { return [1]; });
                dtp.enable();
                dtp.fire('probe1', function () { return [2]; });
            };
        },
        bt: 'usdt:*:nodeapp:probe1 { printf("%d\\n", arg0); @n++; }',
        events: 2, want: ['1', '2'],
    },
    'fewer-args': {
        setup: function () {
            var provider = d.createDTraceProvider('nodeapp');
            var probe = provider.addProbe('p1', 'int', 'int', 'char *');
            provider.enable();
            return function () { probe.fire(function () { return [42]; }); };
        },
        bt: 'usdt:*:nodeapp:p1 { printf("%d %d %s\\n", arg0, arg1, str(arg2)); @n++; }',
        events: 1, want: ['42 0 undefined'],
    },
    'fewer-args-json': {
        setup: function () {
            var provider = d.createDTraceProvider('nodeapp');
            var probe = provider.addProbe('p1', 'json', 'json');
            provider.enable();
            return function () { probe.fire(function () { return [{ foo: 1 }]; }); };
        },
        bt: 'usdt:*:nodeapp:p1 { printf("%s %s\\n", str(arg0), str(arg1)); @n++; }',
        events: 1, want: ['{"foo":1} undefined'],
    },
    'gc-provider': {
        setup: function () {
            function mkProbe() {
                var dtp = d.createDTraceProvider('nodeapp');
                var probe = dtp.addProbe('gcprobe', 'int');
                dtp.enable();
                return probe;
            }
            var p1 = mkProbe();
            global.gc();
            return function () { global.gc(); p1.fire(function () { return [5]; }); };
        },
        bt: 'usdt:*:nodeapp:gcprobe { printf("%d\\n", arg0); @n++; }',
        events: 1, want: ['5'],
    },
    gc: {
        setup: function () {
            var dtp = d.createDTraceProvider('nodeapp');
            dtp.addProbe('gcprobe', 'int');
            dtp.enable();
            global.gc();
            return function () { global.gc(); dtp.fire('gcprobe', function () { return []; }); };
        },
        bt: 'usdt:*:nodeapp:gcprobe { printf("%d\\n", arg0); @n++; }',
        events: 1, want: ['0'],
    },
    'json-args': {
        setup: function () {
            var provider = d.createDTraceProvider('nodeapp');
            var probe = provider.addProbe('json1', 'json');
            provider.enable();
            var obj = {};
            obj.foo = 42;
            obj.bar = 'forty-two';
            return function () { probe.fire(function () { return [obj]; }); };
        },
        bt: 'usdt:*:nodeapp:json1 { printf("%s\\n", str(arg0)); @n++; }',
        events: 1, want: ['{"foo":42,"bar":"forty-two"}'],
    },
    'more-args': {
        setup: function () {
            var provider = d.createDTraceProvider('nodeapp');
            var probe = provider.addProbe('p1', 'int', 'int');
            provider.enable();
            return function () { probe.fire(function () { return [1, 2, 3, 4]; }); };
        },
        bt: 'usdt:*:nodeapp:p1 { printf("%d %d\\n", arg0, arg1); @n++; }',
        events: 1, want: ['1 2'],
    },
    'multiple-json-args': {
        setup: function () {
            var provider = d.createDTraceProvider('nodeapp');
            var probe = provider.addProbe('json1', 'json', 'json');
            provider.enable();
            return function () {
                probe.fire(function () { return [{ value: 'abc' }, { value: 'def' }]; });
            };
        },
        bt: 'usdt:*:nodeapp:json1 { printf("%s %s\\n", str(arg0), str(arg1)); @n++; }',
        events: 1, want: ['{"value":"abc"} {"value":"def"}'],
    },
    notenabled: {
        /* Never enabled: the callback must not run, and nothing fires. */
        setup: function () {
            var dtp = d.createDTraceProvider('nodeapp');
            dtp.addProbe('probe1', 'int');
            var other = d.createDTraceProvider('nodeapp2');
            var marker = other.addProbe('marker', 'int');
            other.enable();
            return function () {
                var ran = 0;
                dtp.fire('probe1', function () { ran = 1; return [1]; });
                marker.fire(function () { return [ran]; });
            };
        },
        bt: 'usdt:*:nodeapp2:marker { printf("callback ran: %d\\n", arg0); @n++; }',
        events: 1, want: ['callback ran: 0'],
    },
};

function sleep(ms) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

var mode = process.argv[2], c = cases[process.argv[3]];
if (mode === 'list') {
    console.log(Object.keys(cases).join('\n'));
} else if (mode === 'script') {
    console.log(c.bt);
    console.log('BEGIN { printf("attached\\n"); }');
    console.log('interval:ms:50 { if (@n >= ' + c.events + ') { exit(); } }');
    console.log('END { clear(@n); }');
} else if (mode === 'want') {
    console.log(c.accept ? 'accepted' : c.want.slice().sort().join('\n'));
} else if (mode === 'files') {
    console.log(c.files || 1);
} else if (mode === 'filter') {
    var lines = fs.readFileSync(0, 'utf8').split('\n').filter(Boolean)
        .map(c.filter || function (l) { return l; }).sort();
    console.log(c.accept ? (c.accept(lines) ? 'accepted' : lines.join('\n')) : lines.join('\n'));
} else if (mode === 'run') {
    // run CASE GOFILE ENDFILE: fire once GOFILE exists, then stay until
    // ENDFILE does, so that bpftrace ends by its exit(), never because its
    // target went away (bpftrace 0.17 then prints its maps before END runs).
    // Each wait gives up after 10 minutes: only a hung test meets that.
    var waitFor = function (path) {
        for (var t = 0; t < 30000 && !fs.existsSync(path); t++)
            sleep(20);
    };
    var fire = c.setup();
    console.log('ready ' + process.pid);
    waitFor(process.argv[4]);
    fire();
    console.log('fired');
    waitFor(process.argv[5]);
    console.log('done');
}
