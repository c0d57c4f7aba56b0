/*
 * dtrace-provider.js - node-dtrace-provider's JavaScript API over libusdt
 * (src/binding.c), so code written for dtrace-provider (bunyan, restify
 * ...) gets probes on Linux that bpftrace, perf and gdb read, and DTrace
 * where it runs.
 *
 *	var d = require('dtrace-provider');
 *	var dtp = d.createDTraceProvider('myapp');
 *	var p = dtp.addProbe('request', 'int', 'char *', 'json');
 *	dtp.enable();
 *	p.fire(function () { return [42, 'GET /', { user: 'ann' }]; });
 *	dtp.fire('request', function (a, b) { return [a, b, {}]; }, 1, 'x');
 *
 * As in dtrace-provider: the callback runs only while the probe is
 * enabled (a tracer is attached), with the arguments given after it;
 * missing arguments are 0 (int) or "undefined" (char *, json), extra ones
 * are ignored; json arguments are passed as JSON.stringify's text;
 * enabling an enabled provider is harmless; a probe's function is its
 * name.  Probes added after enable appear at the next enable.  Without
 * the native module (not built) every call is a no-op, as dtrace-provider
 * does, unless NODE_DTRACE_PROVIDER_REQUIRE=hard.
 */
'use strict';

var binding = null;
var loadError = null;
['Release', 'Debug'].some(function (kind) {
    try {
        binding = require('./build/' + kind + '/usdt_provider.node');
        return true;
    } catch (e) {
        loadError = loadError || e;
        return false;
    }
});
if (binding === null && process.env.NODE_DTRACE_PROVIDER_REQUIRE === 'hard')
    throw loadError;

function convert(type, value) {
    if (type === 'int')
        return value === undefined ? 0 : Number(value) || 0;
    if (value === undefined)
        return 'undefined';
    if (type === 'json') {
        try {
            var s = JSON.stringify(value);
            return s === undefined ? 'undefined' : s;
        } catch (e) {
            return '{ "error": "stringify failed" }';
        }
    }
    return String(value);
}

function DTraceProbe(provider, name, types) {
    this.provider = provider;	/* keeps the provider alive while the probe is */
    this.name = name;
    this.types = types;
    this.handle = binding.addProbe(provider.handle, name,
        types.map(function (t) { return t === 'json' ? 'char *' : t; }));
}

DTraceProbe.prototype.fire = function (cb) {
    if (typeof cb !== 'function')
        throw new TypeError('fire(callback, ...args): callback must be a function');
    if (!binding.isEnabled(this.handle))
        return;
    var args = cb.apply(this, Array.prototype.slice.call(arguments, 1));
    if (!Array.isArray(args))
        return;
    var types = this.types;
    binding.fire(this.handle, types.map(function (t, i) { return convert(t, args[i]); }));
};

function DTraceProvider(name, module) {
    if (!(this instanceof DTraceProvider))
        return new DTraceProvider(name, module);
    this.name = name;
    this.module = module === undefined ? name : module;
    this.probes = {};
    this.enabled = false;
    this.handle = binding.createProvider(name, this.module);
}

DTraceProvider.prototype.addProbe = function (name) {
    var types = Array.prototype.slice.call(arguments, 1);
    types.forEach(function (t) {
        if (t !== 'int' && t !== 'char *' && t !== 'json')
            throw new TypeError('probe ' + name + ': argument type ' + t +
                ' is not int, char * or json');
    });
    var probe = new DTraceProbe(this, name, types);
    this.probes[name] = probe;
    return probe;
};

DTraceProvider.prototype.removeProbe = function (probe) {
    binding.removeProbe(this.handle, probe.handle);
    delete this.probes[probe.name];
};

DTraceProvider.prototype.enable = function () {
    if (this.enabled)
        return;
    binding.enable(this.handle);
    this.enabled = true;
};

DTraceProvider.prototype.disable = function () {
    binding.disable(this.handle);
    this.enabled = false;
};

DTraceProvider.prototype.fire = function (name, cb) {
    var probe = this.probes[name];
    if (probe === undefined)
        return;
    probe.fire.apply(probe, Array.prototype.slice.call(arguments, 1));
};

/* Without the native module: the same API, doing nothing. */
function Stub() {}
Stub.prototype.addProbe = function (name) {
    var p = { fire: function () {} };
    this[name] = p;
    return p;
};
Stub.prototype.removeProbe = function () {};
Stub.prototype.enable = function () {};
Stub.prototype.disable = function () {};
Stub.prototype.fire = function () {};

exports.DTraceProvider = binding !== null ? DTraceProvider : Stub;
exports.createDTraceProvider = function (name, module) {
    return new exports.DTraceProvider(name, module);
};
