# tests/builds/postgresql.mk - the shape of PostgreSQL's probe rules
# (src/backend/Makefile, common.mk): each subdirectory's objects are listed
# in an objfiles.txt that is rewritten or touched whenever one of them is
# newer, and utils/probes.o is made by `dtrace -G` over every object the
# objfiles.txt files list, its prerequisites.
SUBDIROBJS = access/objfiles.txt utils/objfiles.txt

postgres: main.o utils/probes.o $(SUBDIROBJS)
	$(CC) -o $@ main.o $$(cat $(SUBDIROBJS)) utils/probes.o

utils/probes.h: utils/probes.d
	$(DTRACE) -h -s utils/probes.d -o $@

main.o access/heap.o utils/cache.o: utils/probes.h

.c.o:
	$(CC) -I. -c $< -o $@

access/objfiles.txt: access/heap.o
	echo access/heap.o > $@

utils/objfiles.txt: utils/cache.o
	echo utils/cache.o > $@

utils/probes.o: utils/probes.d $(SUBDIROBJS)
	$(DTRACE) -G -s utils/probes.d -o $@ $$(cat $(SUBDIROBJS))
