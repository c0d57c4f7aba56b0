# tests/builds/ruby.mk - the shape of Ruby's probe rules (common.mk with
# DTRACE_REBUILD=yes): the objects with probe calls are prerequisites of
# probes.stamp, touched before `dtrace -G` rewrites those same objects into
# probes.o's companions; a stamp or probes.o already there means an earlier
# -G modified the objects, so they are recompiled first.
DTRACE_REBUILD_OBJS = vm.o gc.o

prog: main.o $(DTRACE_REBUILD_OBJS) probes.o
	$(CC) -o $@ main.o $(DTRACE_REBUILD_OBJS) probes.o

probes.h: probes.d
	$(DTRACE) -h -s probes.d -o $@

main.o vm.o gc.o: probes.h

.c.o:
	$(CC) -c $< -o $@

probes.stamp: $(DTRACE_REBUILD_OBJS)
	if test -f $@ -o -f probes.o; then \
	  rm -f $(DTRACE_REBUILD_OBJS) $@; \
	  echo rebuilding objects which were modified by dtrace -G; \
	  $(MAKE) $(DTRACE_REBUILD_OBJS); \
	fi
	touch $@

probes.o: probes.d probes.stamp
	rm -f $@
	$(DTRACE) -G -s probes.d -o $@ $(DTRACE_REBUILD_OBJS)
